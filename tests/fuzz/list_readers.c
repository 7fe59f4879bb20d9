/* list_readers.c - the formats the library reads, one name a line: the
 * fuzz targets run.sh builds (the registry is the list). */
#include <stdio.h>

#include "tracekit/tracekit.h"

int main(void)
{
	size_t i, n = 0;

	for (i = 0; i < tk_format_count(); i++)
		if (tk_format_get(i)->caps & TK_CAP_READ) {
			printf("%s\n", tk_format_get(i)->name);
			n++;
		}
	/* a registry that reads nothing would fuzz nothing: that fails */
	if (n == 0) {
		fprintf(stderr, "list_readers: the registry lists no reader\n");
		return 1;
	}
	return 0;
}
