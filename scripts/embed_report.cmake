# embed_report.cmake - writes OUT, the C file of the page of the HTML
# report, from its template IN (src/exports/report/report.html): the page
# before and after the /*TK_DATA*/ marker as the strings tk_report_page_head
# and tk_report_page_tail (src/exports/report/report_page.h), one C string
# per line.  The build runs it whenever the template changes:
#   cmake -DIN=src/exports/report/report.html -DHEADER=.../report_page.h \
#         -DOUT=report_page.c -P embed_report.cmake
file(READ "${IN}" text)
string(FIND "${text}" "/*TK_DATA*/" at)
if(at LESS 0)
  message(FATAL_ERROR "${IN}: no /*TK_DATA*/ marker")
endif()
string(SUBSTRING "${text}" 0 ${at} head)
math(EXPR at "${at} + 11")
string(SUBSTRING "${text}" ${at} -1 tail)
foreach(part head tail)
  string(REPLACE "\\" "\\\\" s "${${part}}")
  string(REPLACE "\"" "\\\"" s "${s}")
  string(REPLACE "\t" "\\t" s "${s}")
  string(REPLACE "\r" "\\r" s "${s}")
  string(REPLACE "\n" "\\n\"\n\t\"" s "${s}")
  set(${part} "\t\"${s}\"")
endforeach()
file(WRITE "${OUT}.tmp"
  "/* report_page.c - made by the build from src/exports/report/report.html */\n"
  "#include \"${HEADER}\"\n\nconst char tk_report_page_head[] =\n${head};\n\n"
  "const char tk_report_page_tail[] =\n${tail};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
