// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>

#include "sys/tracepoint.h"
#include "util/suggest.h"

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* The tracefs directory found but not searchable by this user, if one was. */
static const char *tracefs_denied;

const char *tp_tracefs(void)
{
	char p[64];
	size_t i;

	tracefs_denied = NULL;
	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/events", tracefs_dirs[i]);
		if (!access(p, F_OK))
			return tracefs_dirs[i];
		if (errno == EACCES && !tracefs_denied)
			tracefs_denied = tracefs_dirs[i];
	}
	/* Mounted, but root's (mode 0700): mounting again would not help. */
	if (tracefs_denied) {
		errno = EACCES;
		return NULL;
	}
	/* Not mounted (a bare system): the tracepoint formats live there. */
	if (!mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL))
		return tracefs_dirs[0];
	errno = ENOENT;
	return NULL;
}

int tp_event_id(const char *subsys, const char *name)
{
	const char *tfs = tp_tracefs();
	char p[512], buf[32];
	ssize_t n;
	int fd, id;

	if (!tfs)
		return -errno;
	snprintf(p, sizeof(p), "%s/events/%s/%s/id", tfs, subsys, name);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	buf[n] = 0;
	id = atoi(buf);
	return id > 0 ? id : -EINVAL;
}

int tp_each_function(const char *path, int (*fn)(const char *name, const char *mod, void *arg),
		     void *arg)
{
	const char *tfs = path ? NULL : tp_tracefs();
	char p[128], line[512], name[256], mod[128];
	int ret = 0, k;
	FILE *f;

	if (!path && !tfs)
		return -ENOENT;
	if (!path)
		snprintf(p, sizeof(p), "%s/available_filter_functions", tfs);
	f = fopen(path ? path : p, "re");
	if (!f)
		return -ENOENT;
	/* "name" or "name [module]" */
	while (!ret && fgets(line, sizeof(line), f)) {
		k = sscanf(line, "%255s [%127[^]]]", name, mod);
		if (k >= 1)
			ret = fn(name, k == 2 ? mod : NULL, arg);
	}
	fclose(f);
	return ret;
}

static int is_function(const char *name, const char *mod, void *arg)
{
	const char *fn = arg, *colon = strchr(fn, ':');

	if (colon)
		return mod && !strcmp(name, colon + 1) && strlen(mod) == (size_t)(colon - fn) &&
		       !strncmp(mod, fn, (size_t)(colon - fn));
	return !mod && !strcmp(name, fn);
}

int tp_function_traceable(const char *fn)
{
	int ret = tp_each_function(NULL, is_function, (void *)fn);

	return ret < 0 ? -1 : ret;
}

int tp_tracefs_missing(char *msg, size_t msglen)
{
	if (tracefs_denied) {
		/* CAP_BPF and CAP_PERFMON give no access to files: tracefs is root's by default */
		snprintf(msg, msglen, "tracepoints need tracefs, and %s is not readable by this user "
			 "(%s): run kptrace as root, or let the user read it (mount -o "
			 "remount,mode=755 %s)", tracefs_denied, strerror(EACCES), tracefs_denied);
		return -EACCES;
	}
	snprintf(msg, msglen, "tracepoints need tracefs (mount -t tracefs nodev "
		 "/sys/kernel/tracing)");
	return -ENOENT;
}

/* "field:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:G;" */
static int parse_field(char *line, struct tp_field *f)
{
	char *decl, *semi, *name, *br;
	unsigned int off, size, sgn;
	char *p;

	decl = strstr(line, "field:");
	if (!decl)
		return -1;
	decl += 6;
	semi = strchr(decl, ';');
	if (!semi)
		return -1;
	*semi = 0;
	p = strstr(semi + 1, "offset:");
	if (!p || sscanf(p, "offset:%u;\tsize:%u;\tsigned:%u;", &off, &size, &sgn) != 3)
		return -1;
	memset(f, 0, sizeof(*f));
	snprintf(f->decl, sizeof(f->decl), "%s", decl);
	f->offset = off;
	f->size = size;
	f->is_signed = sgn;
	/* The name is the last word of the declaration, less any [N]. */
	br = strchr(decl, '[');
	name = strrchr(decl, ' ');
	if (!name)
		return -1;
	if (br && br < name) {
		/* "__data_loc char[] name" */
		f->data_loc = !strncmp(decl, "__data_loc", 10);
	} else if (br) {
		unsigned int n = (unsigned int)strtoul(br + 1, NULL, 10);

		*br = 0;
		f->char_array = strstr(decl, "char") != NULL;
		/* __u8 daddr[4]: an array, as ftrace's eprobes read it */
		if (!f->char_array && n && n <= size && size % n == 0)
			f->array_len = (uint16_t)n;
	}
	*name++ = 0;
	while (*name == '*') {
		f->pointer = true;
		name++;
	}
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->type, sizeof(f->type), "%s", decl);
	if (strchr(decl, '*'))
		f->pointer = true;
	return 0;
}

/* End of the C expression at s: the next comma outside (), [], {} and quotes. */
static const char *arg_end(const char *s)
{
	int depth = 0;
	char q = 0;

	for (; *s; s++) {
		if (q) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == q)
				q = 0;
		} else if (*s == '"' || *s == '\'') {
			q = *s;
		} else if (strchr("([{", *s)) {
			depth++;
		} else if (strchr(")]}", *s)) {
			depth--;
		} else if (*s == ',' && depth <= 0) {
			break;
		}
	}
	return s;
}

/* "REC->name", maybe behind casts such as "(void *)": name's field, or NULL. */
static struct tp_field *rec_field(struct tp_format *fmt, const char *s, const char *e)
{
	char name[64];
	size_t n;

	for (;;) {
		while (s < e && *s == ' ')
			s++;
		if (s >= e || *s != '(')
			break;
		while (s < e && *s != ')')	/* a cast: no parentheses inside */
			s++;
		s++;
	}
	while (e > s && strchr(" \t\n\r", e[-1]))
		e--;
	if (e - s < 6 || strncmp(s, "REC->", 5))
		return NULL;
	n = (size_t)(e - s - 5);
	if (n >= sizeof(name))
		return NULL;
	memcpy(name, s + 5, n);
	name[n] = 0;
	/* an expression ("REC->a + 4") is no field's name */
	return (struct tp_field *)tp_field_find(fmt, name);
}

int tp_print_fmt_scan(const char *line, struct tp_conv *convs, int max)
{
	const char *s = strchr(line, '"'), *a, *cs;
	int n = 0, i;

	if (!s)
		return -1;
	for (s++; *s && *s != '"'; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			continue;
		}
		if (*s != '%')
			continue;
		cs = s;
		if (*++s == '%')
			continue;
		while (*s && strchr("-+ #0", *s))
			s++;
		for (; *s && strchr("0123456789.*", *s); s++)
			if (*s == '*' && n < max)	/* an argument of its own */
				convs[n++] = (struct tp_conv){ .conv = '*', .fs = s, .fe = s };
		while (*s && strchr("hlLqjzt", *s))
			s++;
		if (!*s || *s == '"')
			break;
		if (n >= max)
			continue;
		convs[n] = (struct tp_conv){ .conv = *s, .fs = cs, .fe = s + 1 };
		convs[n].ext = *s == 'p' && isalnum((unsigned char)s[1]);
		if (convs[n].ext && strchr("SsB", s[1])) {
			convs[n].conv = s[1];
			convs[n].fe = s + 2;
		} else if (convs[n].ext && s[1] == 'I' && (s[2] == '4' || s[2] == '6')) {
			convs[n].conv = s[2];	/* %pI4, %pI6, %pI6c */
			convs[n].fe = s + 3 + (s[2] == '6' && s[3] == 'c');
		} else if (convs[n].ext) {
			convs[n].conv = 'P';	/* another of the kernel's %p<X> */
		}
		n++;
	}
	if (*s != '"')
		return -1;
	a = strchr(s + 1, ',');
	for (i = 0; i < n; i++) {
		convs[i].as = convs[i].ae = NULL;
		if (a && *a == ',') {
			convs[i].as = ++a;
			convs[i].ae = a = arg_end(a);
		}
	}
	return n;
}

/*
 * print fmt: "FORMAT", ARG, ARG...: the fields the kernel prints as code
 * addresses (%pS, %ps, %pB, as kmem/kmalloc's call_site) are marked, so an
 * untyped one prints as a symbol, as ftrace shows it (%ps: the name alone);
 * the ones it prints as IP addresses (%pI4, %pI6c) as ipv4/ipv6. What is
 * not a plain REC->field is left alone.
 */
static void parse_print_fmt(const char *line, struct tp_format *fmt)
{
	struct tp_conv convs[64];
	int n = tp_print_fmt_scan(line, convs, 64), i;

	for (i = 0; i < n; i++) {
		char c = convs[i].ext ? convs[i].conv : 0;
		struct tp_field *f = convs[i].as && c && strchr("SsB46", c) ?
				     rec_field(fmt, convs[i].as, convs[i].ae) : NULL;

		if (f && f->data_loc)
			f = NULL;
		if (f && strchr("SsB", c) && f->size == 8 && !f->char_array)
			f->symbol = c == 's' ? TP_SYM_NAME : TP_SYM_OFFSET;
		if (f && c == '4' && f->size == 4)
			f->addr = TP_ADDR_IPV4;
		if (f && c == '6' && f->size == 16)
			f->addr = TP_ADDR_IPV6;
	}
}

/* " (did you mean 'SUBSYS/EVENT'?)": the closest of tracefs's events, or "". */
static void tp_suggest(const char *tfs, const char *subsys, const char *name, char *buf,
		       size_t len)
{
	char want[2 * 64 + 2], cand[2 * 256 + 2], best[sizeof(cand)], dir[512];
	struct dirent *s, *e;
	struct suggest sg;
	DIR *sd, *ed;

	snprintf(want, sizeof(want), "%s/%s", subsys, name);
	suggest_init(&sg, want);
	snprintf(dir, sizeof(dir), "%s/events", tfs);
	sd = opendir(dir);
	while (sd && (s = readdir(sd))) {
		if (s->d_name[0] == '.' || (s->d_type != DT_DIR && s->d_type != DT_UNKNOWN))
			continue;
		snprintf(dir, sizeof(dir), "%s/events/%s", tfs, s->d_name);
		ed = opendir(dir);
		while (ed && (e = readdir(ed))) {
			if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
				continue;
			snprintf(cand, sizeof(cand), "%s/%s", s->d_name, e->d_name);
			suggest_add(&sg, cand);
			/* the candidate's text is this loop's: keep the best's */
			if (sg.best == cand) {
				memcpy(best, cand, sizeof(best));
				sg.best = best;
			}
		}
		if (ed)
			closedir(ed);
	}
	if (sd)
		closedir(sd);
	suggest_text(&sg, buf, len);
}

/* The format file as read, for the printer of the kernel's own line (tpprint.c). */
static int keep_text(struct tp_format *fmt, const char *line, size_t n)
{
	char *t = realloc(fmt->text, fmt->text_len + n + 1);

	if (!t)
		return -ENOMEM;
	memcpy(t + fmt->text_len, line, n + 1);
	fmt->text = t;
	fmt->text_len += n;
	return 0;
}

int tp_format_load(const char *subsys, const char *name, const char *path,
		   struct tp_format *fmt, char *msg, size_t msglen)
{
	char buf[512], *line = NULL;
	size_t linecap = 0;
	const char *dir;
	ssize_t got;
	FILE *f;
	int cap = 0;

	memset(fmt, 0, sizeof(*fmt));
	if (!path) {
		dir = tp_tracefs();
		if (!dir)
			return tp_tracefs_missing(msg, msglen);
		snprintf(buf, sizeof(buf), "%s/events/%s/%s/format", dir, subsys, name);
		path = buf;
	}
	f = fopen(path, "re");
	if (!f) {
		int err = -errno;
		char dym[200] = "";

		if (path == buf && err == -ENOENT)
			tp_suggest(dir, subsys, name, dym, sizeof(dym));
		snprintf(msg, msglen, "no tracepoint %s/%s in this kernel (%s: %s)%s", subsys, name,
			 path, strerror(-err), dym);
		return err;
	}
	/* getline: a print fmt line runs to kilobytes (kmalloc's gfp flags) */
	while ((got = getline(&line, &linecap, f)) > 0) {
		struct tp_field fld;

		if (keep_text(fmt, line, (size_t)got)) {
			free(line);
			fclose(f);
			tp_format_free(fmt);
			return -ENOMEM;
		}

		if (sscanf(line, "ID: %d", &fmt->id) == 1)
			continue;
		if (!strncmp(line, "print fmt:", 10)) {
			parse_print_fmt(line, fmt);
			continue;
		}
		if (parse_field(line, &fld) || !strncmp(fld.name, "common_", 7))
			continue;
		if (fmt->nfields == cap) {
			struct tp_field *nf;

			cap = cap ? cap * 2 : 16;
			nf = realloc(fmt->fields, cap * sizeof(*nf));
			if (!nf) {
				free(line);
				fclose(f);
				tp_format_free(fmt);
				return -ENOMEM;
			}
			fmt->fields = nf;
		}
		fmt->fields[fmt->nfields++] = fld;
	}
	free(line);
	fclose(f);
	return 0;
}

const struct tp_field *tp_field_find(const struct tp_format *fmt, const char *name)
{
	int i;

	for (i = 0; i < fmt->nfields; i++)
		if (!strcmp(fmt->fields[i].name, name))
			return &fmt->fields[i];
	return NULL;
}

void tp_field_names(const struct tp_format *fmt, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < fmt->nfields && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 fmt->fields[i].name);
}

void tp_format_free(struct tp_format *fmt)
{
	free(fmt->fields);
	free(fmt->text);
	memset(fmt, 0, sizeof(*fmt));
}
