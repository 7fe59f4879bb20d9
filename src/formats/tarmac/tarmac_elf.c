/*
 * tarmac_elf.c - the function symbols of an ELF file, for the profile of a
 * Tarmac log and others (tracekit/elf.h, tk_symtab_*): STT_FUNC symbols, and
 * assembler labels (STT_NOTYPE) where no function covers the code.
 *
 * libelf does the reading (any class, any byte order); what is kept is a
 * sorted array of (address, size, name) with the names in one buffer.
 * Lookups are a binary search for the last start at or below the address.
 */
#include "tarmac.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tk_symtab {
	tk_symbol *syms;
	size_t count;
	char *names;
	/* outer[i]: the last symbol before i whose range holds syms[i]'s
	 * start (a function another one is nested in, or overlaps), or -1;
	 * the chain from i holds every symbol covering that start */
	long *outer;
};

/* the end of a symbol, at most 2^64 - 1 */
static uint64_t sym_end(const tk_symbol *y)
{
	return y->address + y->size < y->address ? UINT64_MAX
						  : y->address + y->size;
}

/* outer[] for syms[0 .. count) in address order: a stack of the symbols
 * that may still cover a later start (ends past it) */
static int set_outer(tk_symtab *st)
{
	long *stack = NULL, *o;
	size_t i, n = 0;

	o = st->count ? realloc(st->outer, st->count * sizeof(*o)) : st->outer;
	if (st->count && !o)
		return -1;
	st->outer = o;
	if (!st->count)
		return 0;
	stack = malloc(st->count * sizeof(*stack));
	if (!stack)
		return -1;
	for (i = 0; i < st->count; i++) {
		while (n && sym_end(&st->syms[stack[n - 1]]) <= st->syms[i].address)
			n--;
		o[i] = n ? stack[n - 1] : -1;
		stack[n++] = (long)i;
	}
	free(stack);
	return 0;
}

enum { RAW_FUNC = 0, RAW_LABEL = 1, RAW_DATA = 2 /* $d: ends a label */ };

typedef struct raw_sym {
	uint64_t address, size, sec_end;
	int kind;                 /* RAW_* */
	size_t name;              /* offset into the name buffer */
	const char *nameptr;      /* set once the buffer stops moving */
	int global;
} raw_sym;

static int cmp_raw(const void *a, const void *b)
{
	const raw_sym *x = a, *y = b;

	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->global != y->global)
		return x->global ? -1 : 1;
	return strcmp(x->nameptr, y->nameptr);
}

static int elf_fail(tk_error *err, const char *path, int code, const char *what)
{
	int e = elf_errno();

	if (e)
		return tk_err_set(err, code, path, 0, 0, "%s (%s)", what,
				  elf_errmsg(e));
	return tk_err_set(err, code, path, 0, 0, "%s", what);
}

static int symtab_read(tk_symtab **out, const char *path, int fd,
		       const void *mem, size_t memlen, tk_error *err)
{
	tk_symtab *st = NULL;
	raw_sym *raw = NULL;
	char *names = NULL;
	size_t nraw = 0, capraw = 0, nlen = 0, capn = 0, i, k, nf;
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr shdr, symshdr = { 0 };
	GElf_Ehdr ehdr;
	Elf_Data *data;
	Elf *elf = NULL;
	size_t shnum = 0;
	char *copy = NULL;
	int rc, arm;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return elf_fail(err, path, TK_E_IO, "libelf cannot be initialised");
	if (fd >= 0) {
		elf = elf_begin(fd, ELF_C_READ, NULL);
	} else {
		/* libelf may convert the image in place: a copy of it */
		copy = malloc(memlen ? memlen : 1);
		if (!copy)
			goto nomem;
		if (memlen)
			memcpy(copy, mem, memlen);
		elf = elf_memory(copy, memlen);
	}
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rc = tk_err_set(err, TK_E_FORMAT, path, 0, 0, "not an ELF file");
		goto out;
	}
	if (!gelf_getehdr(elf, &ehdr) || elf_getshdrnum(elf, &shnum) != 0) {
		rc = elf_fail(err, path, TK_E_PARSE, "damaged ELF header");
		goto out;
	}
	arm = ehdr.e_machine == EM_ARM;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &shdr)) {
			rc = elf_fail(err, path, TK_E_PARSE, "damaged section header");
			goto out;
		}
		if (shdr.sh_type == SHT_SYMTAB ||
		    (shdr.sh_type == SHT_DYNSYM && !symscn)) {
			symscn = scn;
			symshdr = shdr;
		}
	}
	if (!symscn) {
		size_t size = 0;
		(void)elf_rawfile(elf, &size);
		rc = tk_err_set(err, TK_E_FORMAT, path, 0, 0, "%s",
				ehdr.e_shoff + (uint64_t)shnum * ehdr.e_shentsize > size
					? "truncated ELF file (its section headers end past the end of the file)"
					: "no symbol table (stripped ELF file?)");
		goto out;
	}
	data = elf_getdata(symscn, NULL);
	if (!data || symshdr.sh_entsize == 0) {
		rc = elf_fail(err, path, TK_E_PARSE, "damaged symbol table");
		goto out;
	}
	for (i = 0; i < data->d_size / symshdr.sh_entsize; i++) {
		GElf_Sym sym;
		GElf_Shdr sec;
		const char *name;
		Elf_Scn *s;
		size_t n;
		int kind;

		if (!gelf_getsym(data, (int)i, &sym)) {
			rc = elf_fail(err, path, TK_E_PARSE, "damaged symbol");
			goto out;
		}
		if ((GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_NOTYPE) ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		name = elf_strptr(elf, symshdr.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		kind = GELF_ST_TYPE(sym.st_info) == STT_FUNC ? RAW_FUNC : RAW_LABEL;
		if (name[0] == '$') {
			/* mapping symbols: $d (data) ends a label's code */
			if (kind != RAW_LABEL || name[1] != 'd' ||
			    (name[2] && name[2] != '.'))
				continue;
			kind = RAW_DATA;
		}
		s = elf_getscn(elf, sym.st_shndx);
		if (!s || !gelf_getshdr(s, &sec)) {
			rc = elf_fail(err, path, TK_E_PARSE, "symbol in a damaged section");
			goto out;
		}
		if (kind != RAW_FUNC && !(sec.sh_flags & SHF_EXECINSTR))
			continue;      /* a data label */
		n = strlen(name) + 1;
		if (tk_grow_zero((void **)&names, &capn, nlen + n - 1, 1) < 0 ||
		    tk_grow_zero((void **)&raw, &capraw, nraw, sizeof(*raw)) < 0)
			goto nomem;
		memcpy(names + nlen, name, n);
		raw[nraw].address = sym.st_value & (arm ? ~(uint64_t)1 : ~(uint64_t)0);
		raw[nraw].size = sym.st_size;
		raw[nraw].sec_end = sec.sh_addr + sec.sh_size;
		raw[nraw].name = nlen;
		raw[nraw].global = GELF_ST_BIND(sym.st_info) == STB_GLOBAL;
		raw[nraw].kind = kind;
		nraw++;
		nlen += n;
	}
	st = calloc(1, sizeof(*st));
	if (!st || (nraw && !(st->syms = tk_xrealloc_array(NULL, nraw, sizeof(*st->syms)))))
		goto nomem;
	for (i = 0; i < nraw; i++)
		raw[i].nameptr = names + raw[i].name;
	if (nraw)
		qsort(raw, nraw, sizeof(*raw), cmp_raw);
	/* functions; aliases: the first at each address (global first, then
	 * by name) */
	for (i = 0, k = 0; i < nraw; i++) {
		if (raw[i].kind != RAW_FUNC ||
		    (k && raw[i].address == st->syms[k - 1].address))
			continue;
		st->syms[k].address = raw[i].address;
		st->syms[k].size = raw[i].size;
		st->syms[k].name = names + raw[i].name;
		st->syms[k].label = 0;
		if (!raw[i].size) {
			/* the next function's start, or the end of the section */
			size_t j = i + 1;
			uint64_t end = raw[i].sec_end;
			while (j < nraw && (raw[j].address == raw[i].address ||
					    raw[j].kind != RAW_FUNC))
				j++;
			if (j < nraw && raw[j].address < end)
				end = raw[j].address;
			st->syms[k].size = end > raw[i].address ? end - raw[i].address : 0;
		}
		k++;
	}
	st->count = k;
	if (set_outer(st) < 0)
		goto nomem;
	/* labels where no function is: to the next symbol of any kind */
	nf = k;
	for (i = 0; i < nraw; i++) {
		size_t j = i + 1;
		uint64_t end = raw[i].sec_end;
		if (raw[i].kind != RAW_LABEL || tk_symtab_find(st, raw[i].address) >= 0 ||
		    (k > nf && st->syms[k - 1].address == raw[i].address))
			continue;
		while (j < nraw && raw[j].address == raw[i].address)
			j++;
		if (j < nraw && raw[j].address < end)
			end = raw[j].address;
		if (end <= raw[i].address)
			continue;
		st->syms[k].address = raw[i].address;
		st->syms[k].size = end - raw[i].address;
		st->syms[k].name = names + raw[i].name;
		st->syms[k].label = 1;
		k++;
	}
	/* one address order: merge the functions and the labels */
	if (k > nf) {
		tk_symbol *m = tk_xrealloc_array(NULL, k, sizeof(*m));
		size_t a = 0, b = nf, o = 0;
		if (!m)
			goto nomem;
		while (a < nf || b < k)
			m[o++] = b == k || (a < nf && st->syms[a].address <= st->syms[b].address)
				? st->syms[a++] : st->syms[b++];
		memcpy(st->syms, m, k * sizeof(*m));
		free(m);
	}
	st->count = k;
	if (set_outer(st) < 0)
		goto nomem;
	st->names = names;
	names = NULL;
	*out = st;
	st = NULL;
	rc = TK_OK;
	goto out;
nomem:
	rc = tk_err_nomem(err, path);
out:
	tk_symtab_free(st);
	free(raw);
	free(names);
	if (elf)
		elf_end(elf);
	free(copy);
	return rc;
}

int tk_symtab_open(tk_symtab **out, const char *path,
		   tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_symtab_open", "out pointer");
	int fd, rc;

	*out = NULL;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return tk_err_set(err, TK_E_IO, path, 0, 0, "cannot open: %s",
				  strerror(errno));
	rc = symtab_read(out, path, fd, NULL, 0, err);
	close(fd);
	return rc;
}

int tk_symtab_open_mem(tk_symtab **out, const void *data,
		       size_t len, const char *name, tk_error *err)
{
	if (!out)
		return tk_err_null(err, "tk_symtab_open_mem", "out pointer");
	return symtab_read(out, name, -1, data, len, err);
}

size_t tk_symtab_count(const tk_symtab *st)
{
	return st ? st->count : 0;
}

const tk_symbol *tk_symtab_get(const tk_symtab *st,
			       size_t i)
{
	return st && i < st->count ? &st->syms[i] : NULL;
}

static int cmp_sym(const void *a, const void *b)
{
	const tk_symbol *x = a, *y = b;

	return x->address < y->address ? -1 : x->address > y->address;
}

void tk_symtab_shift(tk_symtab *st, uint64_t offset)
{
	size_t i;

	if (!st || !st->count)
		return;
	for (i = 0; i < st->count; i++)
		st->syms[i].address += offset;
	/* those moved past 2^64 now come first */
	qsort(st->syms, st->count, sizeof(*st->syms), cmp_sym);
	if (set_outer(st) < 0) {
		/* no room for the chains: each symbol alone (no nesting) */
		free(st->outer);
		st->outer = NULL;
	}
}

long tk_symtab_find_span(const tk_symtab *st, uint64_t address,
			 uint64_t *from, uint64_t *to)
{
	size_t lo = 0, hi = st ? st->count : 0;
	uint64_t start, end;
	long b, s;

	/* the last symbol starting at or below the address */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->syms[mid].address <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	b = (long)lo - 1;
	/* or the innermost one it is nested in (overlapping symbols) */
	start = st->syms[b].address;
	for (s = b; s >= 0; s = st->outer ? st->outer[s] : -1) {
		if (address - st->syms[s].address < st->syms[s].size)
			break;
		if (sym_end(&st->syms[s]) > start)
			start = sym_end(&st->syms[s]);
	}
	if (s < 0)
		return -1;
	/* the addresses with the same answer: from the start of the last
	 * symbol below (or past the ends of those nested in s that end
	 * below the address) to s's end or the next symbol's start */
	end = sym_end(&st->syms[s]);
	if ((size_t)b + 1 < st->count && st->syms[b + 1].address < end)
		end = st->syms[b + 1].address;
	if (from)
		*from = start;
	if (to)
		*to = end;
	return s;
}

long tk_symtab_find(const tk_symtab *st, uint64_t address)
{
	return tk_symtab_find_span(st, address, NULL, NULL);
}

void tk_symtab_free(tk_symtab *st)
{
	if (!st)
		return;
	free(st->syms);
	free(st->names);
	free(st->outer);
	free(st);
}
