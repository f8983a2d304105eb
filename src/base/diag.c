// SPDX-License-Identifier: Apache-2.0
/*
 * Bounded lists of located diagnostics.
 */
#include "base/diag.h"

#include <stdarg.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/text.h"

void diag_init(struct diag *d)
{
	d->msgs = (__typeof__(d->msgs))VEC_INIT;
	d->errors = d->warnings = d->dropped = 0;
}

void diag_release(struct diag *d)
{
	vec_foreach (&d->msgs, m) {
		free(m->file);
		free(m->text);
	}
	vec_release(&d->msgs);
	diag_init(d);
}

static void count(struct diag *d, enum diag_severity severity)
{
	if (severity == DIAG_ERROR)
		d->errors++;
	else
		d->warnings++;
}

/* A copy of s safe to print: see text_quote(). */
static char *quoted(const char *s, size_t len)
{
	struct strbuf sb;
	char *q;

	strbuf_init(&sb);
	text_quote(&sb, s, len, TEXT_QUOTE_MAX);
	q = strbuf_take(&sb);
	strbuf_release(&sb); /* take leaves sb empty but allocated */
	return q;
}

void diag_vadd(struct diag *d, enum diag_severity severity, const char *file,
	       int line, int col, const char *fmt, va_list ap)
{
	struct strbuf sb;

	BUG_ON(severity >= DIAG_SEVERITY_COUNT);
	count(d, severity);
	if (d->msgs.len >= DIAG_MAX) {
		d->dropped++;
		return;
	}
	strbuf_init(&sb);
	strbuf_vaddf(&sb, fmt, ap);
	vec_push(&d->msgs,
		 ((struct diag_msg){
			 .severity = severity,
			 .file = file ? quoted(file, strlen(file)) : NULL,
			 .line = line,
			 .col = col,
			 .text = quoted(sb.buf, sb.len),
		 }));
	strbuf_release(&sb);
}

void diag_add(struct diag *d, enum diag_severity severity, const char *file,
	      int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vadd(d, severity, file, line, col, fmt, ap);
	va_end(ap);
}

void diag_at(struct diag *d, enum diag_severity severity,
	     const struct srcpos *pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vadd(d, severity, pos ? pos->file : NULL, pos ? pos->line : 0,
		  pos ? pos->col : 0, fmt, ap);
	va_end(ap);
}

void diag_move(struct diag *dst, struct diag *src)
{
	vec_foreach (&src->msgs, m) {
		if (dst->msgs.len >= DIAG_MAX) {
			dst->dropped++;
			free(m->file);
			free(m->text);
			continue;
		}
		vec_push(&dst->msgs, *m);
	}
	dst->errors += src->errors;
	dst->warnings += src->warnings;
	dst->dropped += src->dropped;
	vec_release(&src->msgs);
	diag_init(src);
}

void diag_format(const struct diag *d, struct strbuf *out)
{
	vec_foreach (&d->msgs, m) {
		if (m->file && m->line)
			strbuf_addf(out, "%s:%d:%d: ", m->file, m->line,
				    m->col);
		else if (m->file)
			strbuf_addf(out, "%s: ", m->file);
		if (m->severity == DIAG_WARNING)
			strbuf_addstr(out, "warning: ");
		strbuf_addf(out, "%s\n", m->text);
	}
	if (d->dropped)
		strbuf_addf(out, "... and %zu more\n", d->dropped);
}
