/*
 * loss.h - what a writer's format cannot hold: counted per kind and
 * reported in one warning at close (lenient), or refused at the first
 * occurrence (strict).  Shared by the writers.
 */
#ifndef TK_LOSS_H
#define TK_LOSS_H

#include "internal.h"

#define TK_LOSS_KINDS 10

typedef struct tk_losses {
	const char *format;              /* "HTF", "ATF" */
	const char *const *what;         /* per kind, for the strict error */
	const char *const *brief;        /* per kind, for the warning */
	unsigned nkinds;                 /* <= TK_LOSS_KINDS */
	uint64_t n[TK_LOSS_KINDS];
	char first[TK_LOSS_KINDS][64];   /* the first one of each kind, named */
} tk_losses;

/**
 * A loss of `kind` at event ev (or NULL): in strict mode the error
 * (TK_E_UNSUPPORTED, naming the event), else counted and TK_OK; the
 * warning names the first event of each kind ('timer_post' of EVENT).
 */
int tk_loss_add(tk_losses *l, const tk_writer *w, const char *out, int kind,
		const tk_event *ev, tk_error *err);
/** The one warning that counts everything dropped (if anything was). */
void tk_loss_report(const tk_losses *l, const tk_writer *w, const char *out);

#endif
