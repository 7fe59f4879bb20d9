/* report_page.h - the HTML page of `tracekit report`, around its data. */
#ifndef TK_REPORT_PAGE_H
#define TK_REPORT_PAGE_H

/* The page's data (cmd_report.c) index their worst instances with core's
 * hash map and grow with core's grower: the one part of src/cli/ that
 * uses the library's internals, until the report's code moves into the
 * library (issue 38, point 2; tests/docs/cli_includes.sh names it). */
#include "../core/hashmap.h"
#include "../core/internal.h"

/* Made by the build from src/report/report.html (scripts/embed_report.cmake):
 * the page up to "const D=" and the page after the data object. */
extern const char tk_report_page_head[];
extern const char tk_report_page_tail[];

#endif
