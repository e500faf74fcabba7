/*
 * table.c -- text tables whose columns line up: for a terminal (the header
 * in bold when asked) or as Markdown (which renders aligned, and reads
 * aligned in a raw PR comment or CI log too).  The CLI's tables and the
 * verdict's Markdown (check_render.c) both come from here.
 *
 * A cell holds text from outside (a series name, a unit, a subject): it is
 * escaped for where the table goes when it is rendered, so that a name can
 * neither split a Markdown row nor send escape sequences to a terminal.
 * Columns are padded by what the escaped cells take on a terminal
 * (bg_text__columns): a CJK name takes two columns a character, an accent
 * none, and the rest of its row still lines up.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct bg_table {
	size_t ncols, nrows, cap;
	char **cells; /* row-major, header row first */
	char *align;  /* 'l' or 'r' per column */
	int markup;   /* cells are Markdown already (bg_table_markup) */
	/* A row could not be added: rendering says so rather than print a
	 * table without it (a verdict table short of its regression). */
	int failed;
};

void bg_table_markup(bg_table *t)
{
	t->markup = 1;
}

void bg_table_free(bg_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->align);
	free(t);
}

bg_table *bg_table_new(size_t ncols, const char *const *headers, const char *align)
{
	bg_table *t = calloc(1, sizeof(*t));
	size_t i;

	if (!t)
		return NULL;
	t->ncols = ncols;
	if (!(t->align = calloc(ncols + 1, 1))) {
		free(t);
		return NULL;
	}
	for (i = 0; i < ncols; i++)
		t->align[i] = align && align[i] == 'r' ? 'r' : 'l';
	if (bg_table_add(t, headers) < 0) {
		bg_table_free(t);
		return NULL;
	}
	return t;
}

int bg_table_add(bg_table *t, const char *const *cells)
{
	size_t i, base;

	if (!t)
		return BG_ENOMEM;
	/* An element is a row of ncols cells. */
	if (t->ncols > SIZE_MAX / sizeof(char *) ||
	    bg_grow((void **)&t->cells, &t->cap, t->nrows, t->ncols * sizeof(char *)) < 0) {
		t->failed = 1;
		return BG_ENOMEM;
	}
	base = t->nrows * t->ncols;
	for (i = 0; i < t->ncols; i++)
		if (!(t->cells[base + i] = strdup(cells[i] ? cells[i] : ""))) {
			while (i--)
				free(t->cells[base + i]);
			t->failed = 1;
			return BG_ENOMEM;
		}
	t->nrows++;
	return 0;
}

static int pad(bg_buf *b, size_t n)
{
	int e = 0;

	while (n--)
		e |= bg_buf_puts(b, " ");
	return e;
}

/* A cell as shown: escaped for the terminal or for Markdown; a Markdown
 * cell that is markup already only loses its line breaks. */
static char *shown(const bg_table *t, const char *cell, int markdown)
{
	char *s, *p;

	if (!markdown)
		return bg_text__escaped(BG_ESC_TERM, cell);
	if (!t->markup)
		return bg_text__escaped(BG_ESC_MD, cell);
	if ((s = strdup(cell)) != NULL)
		for (p = s; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
	return s;
}

static int render(const bg_table *t, int markdown, int bold, bg_buf *b);

int bg_table_render(const bg_table *t, int markdown, int bold, bg_buf *b)
{
	if (!t || t->failed)
		return BG_ENOMEM;
	return render(t, markdown, bold, b);
}

static int render(const bg_table *t, int markdown, int bold, bg_buf *b)
{
	size_t n = t->nrows * t->ncols, *w = calloc(t->ncols ? t->ncols : 1, sizeof(size_t)), r, c,
	       k, *cols = calloc(n ? n : 1, sizeof(size_t));
	char **cells = calloc(n ? n : 1, sizeof(char *));
	int e = 0;

	if (!w || !cells || !cols) {
		e = 1;
		goto cleanup;
	}
	for (k = 0; k < n && !e; k++)
		e |= !(cells[k] = shown(t, t->cells[k], markdown));
	/* Measured once, all together: one switch to a UTF-8 locale. */
	if (!e)
		bg_text__columns((const char *const *)cells, n, cols);
	for (r = 0; r < t->nrows && !e; r++)
		for (c = 0; c < t->ncols; c++)
			if (cols[r * t->ncols + c] > w[c])
				w[c] = cols[r * t->ncols + c];
	for (r = 0; r < t->nrows && !e; r++) {
		if (markdown)
			e |= bg_buf_puts(b, "| ");
		for (c = 0; c < t->ncols; c++) {
			const char *cell = cells[r * t->ncols + c];
			size_t gap = w[c] - cols[r * t->ncols + c];
			int last = c + 1 == t->ncols;

			if (t->align[c] == 'r')
				e |= pad(b, gap);
			if (r == 0 && bold && !markdown)
				e |= bg_buf_printf(b, "\033[1m%s\033[0m", cell);
			else
				e |= bg_buf_puts(b, cell);
			if (t->align[c] != 'r' && (!last || markdown))
				e |= pad(b, gap);
			if (!last)
				e |= bg_buf_puts(b, markdown ? " | " : "  ");
		}
		e |= bg_buf_puts(b, markdown ? " |\n" : "\n");
		if (r == 0 && markdown) {
			e |= bg_buf_puts(b, "|");
			for (c = 0; c < t->ncols; c++) {
				e |= bg_buf_puts(b, t->align[c] == 'r' ? "-" : ":");
				for (k = 0; k < w[c]; k++)
					e |= bg_buf_puts(b, "-");
				e |= bg_buf_puts(b, t->align[c] == 'r' ? ":|" : "-|");
			}
			e |= bg_buf_puts(b, "\n");
		}
	}
cleanup:
	if (cells)
		for (k = 0; k < n; k++)
			free(cells[k]);
	free(cells);
	free(cols);
	free(w);
	return e ? BG_ENOMEM : 0;
}
