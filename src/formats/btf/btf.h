/* btf.h - what the BTF reader, writer and vocabulary share. */
#ifndef TK_BTF_H
#define TK_BTF_H

#include "../../core/internal.h"
#include "../../core/model.h"

int btf_probe(const uint8_t *buf, size_t len);
int btf_reader_open(tk_reader *r, tk_error *err);
int btf_reader_next(tk_reader *r, const tk_event **ev, tk_error *err);
int btf_reader_next_batch(tk_reader *r, const tk_event **evs, size_t *n,
			  size_t max, tk_error *err);
void btf_reader_close(tk_reader *r);

#endif
