// SPDX-License-Identifier: MIT
/*
 * One formatter, two sinks: a bounded buffer (ksnprintf) or the console
 * (kprintf).  The conversions follow C11 7.21.6.1 for the subset printf.h
 * lists.
 */
#include <stdint.h>

#include "printf.h"

struct sink {
	char *buf;		/* NULL: write to the console */
	size_t size;		/* bytes of @buf, including room for the NUL */
	size_t len;		/* bytes produced so far, stored or not */
};

static void put(struct sink *s, char c)
{
	if (!s->buf)
		console_putc(c);
	else if (s->len + 1 < s->size)
		s->buf[s->len] = c;
	s->len++;
}

static void pad(struct sink *s, char c, int n)
{
	while (n-- > 0)
		put(s, c);
}

struct spec {
	int left;		/* '-': pad on the right */
	int zero;		/* '0': pad with zeros */
	int width;		/* minimum field width, 0 if none */
	int prec;		/* precision, -1 if none */
};

/* @prefix is "-", "0x" or "", printed before any zero padding. */
static void put_number(struct sink *s, const struct spec *sp,
		       unsigned long long v, unsigned base, int upper,
		       const char *prefix)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];			/* 2^64 has 20 decimal digits */
	int n = 0, plen = 0, zeros, fill;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	/* C11 7.21.6.1p8: the value 0 with precision 0 prints no digits */
	if (sp->prec == 0 && n == 1 && tmp[0] == '0')
		n = 0;
	while (prefix[plen])
		plen++;

	zeros = sp->prec > n ? sp->prec - n : 0;
	fill = sp->width - plen - zeros - n;
	/* '0' is ignored with '-' or with a precision (7.21.6.1p6) */
	if (sp->zero && !sp->left && sp->prec < 0) {
		zeros += fill > 0 ? fill : 0;
		fill = 0;
	}
	if (!sp->left)
		pad(s, ' ', fill);
	while (*prefix)
		put(s, *prefix++);
	pad(s, '0', zeros);
	while (n)
		put(s, tmp[--n]);
	if (sp->left)
		pad(s, ' ', fill);
}

static void put_string(struct sink *s, const struct spec *sp, const char *str)
{
	int n = 0;

	if (!str)
		str = "(null)";
	while (str[n] && (sp->prec < 0 || n < sp->prec))
		n++;
	if (!sp->left)
		pad(s, ' ', sp->width - n);
	for (int i = 0; i < n; i++)
		put(s, str[i]);
	if (sp->left)
		pad(s, ' ', sp->width - n);
}

/* Parse a decimal number at *@fmt; 0 if there is none. */
static int get_dec(const char **fmt)
{
	int n = 0;

	while (**fmt >= '0' && **fmt <= '9')
		n = n * 10 + *(*fmt)++ - '0';
	return n;
}

static void format(struct sink *s, const char *fmt, va_list ap)
{
	for (; *fmt; fmt++) {
		struct spec sp = { .prec = -1 };
		unsigned long long u;
		long long d;
		int lng = 0;

		if (*fmt != '%') {
			put(s, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				sp.left = 1;
			else if (*fmt == '0')
				sp.zero = 1;
			else
				break;
		}
		if (*fmt == '*') {
			fmt++;
			sp.width = va_arg(ap, int);
			/* a negative '*' width means '-' (7.21.6.1p5) */
			if (sp.width < 0) {
				sp.left = 1;
				sp.width = -sp.width;
			}
		} else {
			sp.width = get_dec(&fmt);
		}
		if (*fmt == '.') {
			fmt++;
			if (*fmt == '*') {
				fmt++;
				sp.prec = va_arg(ap, int);
				if (sp.prec < 0)	/* as if omitted */
					sp.prec = -1;
			} else {
				sp.prec = get_dec(&fmt);
			}
		}
		/* 0: int, 1: long, 2: long long; size_t is a long here */
		if (*fmt == 'l') {
			lng = 1;
			if (*++fmt == 'l') {
				lng = 2;
				fmt++;
			}
		} else if (*fmt == 'z') {
			lng = 1;
			fmt++;
		}

		switch (*fmt) {
		case 'd':
		case 'i':
			d = lng == 2 ? va_arg(ap, long long) :
			    lng == 1 ? va_arg(ap, long) : va_arg(ap, int);
			/* negate in unsigned arithmetic: -LLONG_MIN overflows */
			u = d < 0 ? -(unsigned long long)d : (unsigned long long)d;
			put_number(s, &sp, u, 10, 0, d < 0 ? "-" : "");
			break;
		case 'u':
		case 'x':
		case 'X':
			u = lng == 2 ? va_arg(ap, unsigned long long) :
			    lng == 1 ? va_arg(ap, unsigned long) :
			    va_arg(ap, unsigned int);
			put_number(s, &sp, u, *fmt == 'u' ? 10 : 16,
				   *fmt == 'X', "");
			break;
		case 'p':
			u = (uintptr_t)va_arg(ap, void *);
			put_number(s, &sp, u, 16, 0, "0x");
			break;
		case 's':
			put_string(s, &sp, va_arg(ap, const char *));
			break;
		case 'c':
			pad(s, ' ', sp.left ? 0 : sp.width - 1);
			put(s, (char)va_arg(ap, int));
			pad(s, ' ', sp.left ? sp.width - 1 : 0);
			break;
		case '%':
			put(s, '%');
			break;
		case '\0':			/* a lone '%' at the end */
			fmt--;
			break;
		default:			/* unknown: print it as is */
			put(s, '%');
			put(s, *fmt);
		}
	}
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	static char dummy;
	struct sink s = { .buf = buf, .size = size };

	/* size 0 may come with buf NULL; never let buf NULL mean console */
	if (!s.buf) {
		s.buf = &dummy;
		s.size = 0;
	}
	format(&s, fmt, ap);
	if (s.size)
		s.buf[s.len < s.size ? s.len : s.size - 1] = '\0';
	return (int)s.len;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int kvprintf(const char *fmt, va_list ap)
{
	struct sink s = { .buf = NULL };

	console_lock();		/* one call's output stays together */
	format(&s, fmt, ap);
	console_unlock();
	return (int)s.len;
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvprintf(fmt, ap);
	va_end(ap);
	return n;
}
