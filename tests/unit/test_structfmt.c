// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * out/structfmt.c on a struct of this test's own, compiled by the C
 * compiler: its BTF built here with the offsets offsetof() gives and a
 * bitfield's bits found by setting it in the compiler's layout; the bytes
 * printed are the compiler's, the values the ones the test stored.
 * Nested structs to the depth, a union's members, an anonymous union's
 * members inline, an enum by name, a char array as a string, a long array
 * cut at STRUCTFMT_ELEMS, members past the bytes read counted, JSON.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "check.h"
#include "out/structfmt.h"

enum color { RED = 1, GREEN = 2 };

struct inner {
	int a;
	struct { int deep; } d;
};

struct outer {
	int neg;
	unsigned char flag : 3, mode : 4;
	enum color c;
	char name[8];
	union { unsigned int u; short s; };
	struct inner in;
	void *ptr;
	long arr[20];
	unsigned long last;
};

/* the bit the compiler gives a bitfield: set it in a zeroed struct */
static unsigned int bit_of_flag(void)
{
	struct outer o;
	unsigned char *b = (unsigned char *)&o;
	unsigned int i;

	memset(&o, 0, sizeof(o));
	o.flag = 1;
	for (i = 0; i < sizeof(o) * 8; i++)
		if (b[i / 8] & (1u << (i % 8)))
			return i;
	return 0;
}

static int build(struct btf *b)
{
	int i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	int u8 = btf__add_int(b, "unsigned char", 1, 0);
	int ch = btf__add_int(b, "char", 1, BTF_INT_SIGNED | BTF_INT_CHAR);
	int u32 = btf__add_int(b, "unsigned int", 4, 0);
	int s16 = btf__add_int(b, "short", 2, BTF_INT_SIGNED);
	int l64 = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	int ul64 = btf__add_int(b, "unsigned long", 8, 0);
	int en, deep, inner, un, name, arr, vp, outer;
	unsigned int fb = bit_of_flag();

	en = btf__add_enum(b, "color", 4);
	btf__add_enum_value(b, "RED", 1);
	btf__add_enum_value(b, "GREEN", 2);
	deep = btf__add_struct(b, "", 4);
	btf__add_field(b, "deep", i32, 0, 0);
	inner = btf__add_struct(b, "inner", sizeof(struct inner));
	btf__add_field(b, "a", i32, offsetof(struct inner, a) * 8, 0);
	btf__add_field(b, "d", deep, offsetof(struct inner, d) * 8, 0);
	un = btf__add_union(b, "", 4);
	btf__add_field(b, "u", u32, 0, 0);
	btf__add_field(b, "s", s16, 0, 0);
	name = btf__add_array(b, i32, ch, 8);
	arr = btf__add_array(b, i32, l64, 20);
	vp = btf__add_ptr(b, 0);
	outer = btf__add_struct(b, "outer", sizeof(struct outer));
	btf__add_field(b, "neg", i32, offsetof(struct outer, neg) * 8, 0);
	btf__add_field(b, "flag", u8, fb, 3);
	btf__add_field(b, "mode", u8, fb + 3, 4);
	btf__add_field(b, "c", en, offsetof(struct outer, c) * 8, 0);
	btf__add_field(b, "name", name, offsetof(struct outer, name) * 8, 0);
	btf__add_field(b, "", un, offsetof(struct outer, u) * 8, 0);
	btf__add_field(b, "in", inner, offsetof(struct outer, in) * 8, 0);
	btf__add_field(b, "ptr", vp, offsetof(struct outer, ptr) * 8, 0);
	btf__add_field(b, "arr", arr, offsetof(struct outer, arr) * 8, 0);
	btf__add_field(b, "last", ul64, offsetof(struct outer, last) * 8, 0);
	return outer;
}

static void print(const struct btf *b, int id, const struct outer *o, size_t len, int depth,
		  bool json, char *buf, size_t buflen, uint32_t *cut)
{
	FILE *f = fmemopen(buf, buflen, "w");
	struct outbuf ob;

	ob_init(&ob, f);
	*cut = structfmt(&ob, b, (uint32_t)id, o, len, depth, json);
	ob_flush(&ob);
	fclose(f);
}

int main(void)
{
	struct btf *b = btf__new_empty();
	struct outer o;
	char buf[4096], want[2048];
	uint32_t cut;
	int id, i;

	id = build(b);
	CHECK(id > 0, "BTF built");
	memset(&o, 0, sizeof(o));
	o.neg = -5;
	o.flag = 5;
	o.mode = 9;
	o.c = GREEN;
	strcpy(o.name, "abc");
	o.u = 0x10002;
	o.in.a = 7;
	o.in.d.deep = 8;
	o.ptr = (void *)0xffff8881;
	for (i = 0; i < 20; i++)
		o.arr[i] = i;
	o.last = 42;

	print(b, id, &o, sizeof(o), 1, false, buf, sizeof(buf), &cut);
	snprintf(want, sizeof(want), "{.neg=-5, .flag=5, .mode=9, .c=GREEN, .name=\"abc\", "
		 ".u=65538, .s=2, .in={.a=7, .d={...}}, .ptr=0xffff8881, .arr=[0, 1, 2, 3, 4, 5, "
		 "6, 7, 8, 9, 10, 11, 12, 13, 14, 15, ...], .last=42, ...4 cut}");
	CHECK_STR(buf, want, "depth 1");
	CHECK_INT(cut, 4, "the 4 elements of arr past STRUCTFMT_ELEMS");

	print(b, id, &o, sizeof(o), 2, false, buf, sizeof(buf), &cut);
	CHECK(strstr(buf, ".in={.a=7, .d={.deep=8}}"), "depth 2: %s", buf);

	/* bytes read up to arr's end: last is left out, counted */
	print(b, id, &o, offsetof(struct outer, last), 1, false, buf, sizeof(buf), &cut);
	CHECK(!strstr(buf, ".last=") && strstr(buf, ", ...5 cut}"), "cut: %s", buf);
	CHECK_INT(cut, 5, "arr's 4 and last");

	print(b, id, &o, sizeof(o), 1, true, buf, sizeof(buf), &cut);
	CHECK(!strncmp(buf, "{\"neg\":-5,\"flag\":5,\"mode\":9,\"c\":\"GREEN\",\"name\":\"abc\","
		       "\"u\":65538,\"s\":2,\"in\":{\"a\":7,\"d\":{}},\"ptr\":\"0xffff8881\","
		       "\"arr\":[0,1,", 110) && strstr(buf, ",\"last\":42,\"...\":4}"),
	      "json: %s", buf);
	btf__free(b);
	return check_report();
}
