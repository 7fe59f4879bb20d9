/* list_readers.c - the formats the library reads, one name a line: the
 * fuzz targets run.sh builds (the registry is the list). */
#include <stdio.h>

#include "tracekit/tracekit.h"

int main(void)
{
	size_t i;

	for (i = 0; i < tk_format_count(); i++)
		if (tk_format_get(i)->caps & TK_CAP_READ)
			printf("%s\n", tk_format_get(i)->name);
	return 0;
}
