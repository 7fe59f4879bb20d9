/* report_page.h - the HTML page of the report (report.c), around its data. */
#ifndef TK_REPORT_PAGE_H
#define TK_REPORT_PAGE_H

/* Made by the build from report.html (scripts/embed_report.cmake):
 * the page up to "const D=" and the page after the data object. */
extern const char tk_report_page_head[];
extern const char tk_report_page_tail[];

#endif
