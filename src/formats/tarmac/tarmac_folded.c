/*
 * tarmac_folded.c - "folded" in the format registry.  Folded stacks are
 * not a trace of events: they are made from an Arm Tarmac log and the ELF
 * file of its program (tk_tarmac_profile_write_folded(), run by
 * `tracekit convert LOG OUT.folded --elf FILE`).  The entry is here so that
 * `tracekit formats` lists the output and the extension is known; a writer
 * opened on events refuses with the way to make one.
 */
#include "tarmac.h"

static int folded_writer_open(tk_writer *w, tk_error *err)
{
	(void)w;
	return tk_err_set(err, TK_E_UNSUPPORTED, "folded", 0, 0,
			  "folded stacks are made from an Arm Tarmac log and its ELF file: "
			  "tracekit convert LOG OUT.folded --elf FILE");
}

const tk_format_ops tk_format_folded = {
	.info = { "folded", "folded",
		  "folded stacks for flame graphs, from a Tarmac log + --elf (flamegraph.pl, speedscope)",
		  TK_CAP_WRITE },
	.writer_open = folded_writer_open,
};
