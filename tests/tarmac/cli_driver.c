/*
 * cli_driver.c - runs the Tarmac functions of the CLI (src/cli/tarmac_cli.c)
 * as `cli_driver info|cat|stats|wants ARGS...`, for the tests, independently
 * of how the tracekit command dispatches to them.
 */
#include "../../src/cli/cli.h"

#include <string.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return EXIT_BAD;
	if (strcmp(argv[1], "info") == 0)
		return cli_tarmac_info(argc - 1, argv + 1);
	if (strcmp(argv[1], "cat") == 0)
		return cli_tarmac_cat(argc - 1, argv + 1);
	if (strcmp(argv[1], "stats") == 0)
		return cli_tarmac_stats(argc - 1, argv + 1);
	if (strcmp(argv[1], "wants") == 0) {
		int yes = cli_tarmac_wants(argc - 1, argv + 1);
		printf("%s\n", yes ? "tarmac" : "not tarmac");
		return yes ? EXIT_OK : EXIT_PROBLEMS;
	}
	return EXIT_BAD;
}
