// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The extension types' text (valfmt.h). */
#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "lang/lex.h"
#include "lang/valfmt.h"

/*
 * The kernel's errno numbers, include/uapi/asm-generic/errno*.h (the same
 * on x86-64 and arm64), and the ones that never reach user space but are
 * what kernel functions return (include/linux/errno.h): a return probe
 * sees those too.
 */
static const char *const errno_names[] = {
	[1] = "EPERM",
	[2] = "ENOENT",
	[3] = "ESRCH",
	[4] = "EINTR",
	[5] = "EIO",
	[6] = "ENXIO",
	[7] = "E2BIG",
	[8] = "ENOEXEC",
	[9] = "EBADF",
	[10] = "ECHILD",
	[11] = "EAGAIN",
	[12] = "ENOMEM",
	[13] = "EACCES",
	[14] = "EFAULT",
	[15] = "ENOTBLK",
	[16] = "EBUSY",
	[17] = "EEXIST",
	[18] = "EXDEV",
	[19] = "ENODEV",
	[20] = "ENOTDIR",
	[21] = "EISDIR",
	[22] = "EINVAL",
	[23] = "ENFILE",
	[24] = "EMFILE",
	[25] = "ENOTTY",
	[26] = "ETXTBSY",
	[27] = "EFBIG",
	[28] = "ENOSPC",
	[29] = "ESPIPE",
	[30] = "EROFS",
	[31] = "EMLINK",
	[32] = "EPIPE",
	[33] = "EDOM",
	[34] = "ERANGE",
	[35] = "EDEADLK",
	[36] = "ENAMETOOLONG",
	[37] = "ENOLCK",
	[38] = "ENOSYS",
	[39] = "ENOTEMPTY",
	[40] = "ELOOP",
	[42] = "ENOMSG",
	[43] = "EIDRM",
	[44] = "ECHRNG",
	[45] = "EL2NSYNC",
	[46] = "EL3HLT",
	[47] = "EL3RST",
	[48] = "ELNRNG",
	[49] = "EUNATCH",
	[50] = "ENOCSI",
	[51] = "EL2HLT",
	[52] = "EBADE",
	[53] = "EBADR",
	[54] = "EXFULL",
	[55] = "ENOANO",
	[56] = "EBADRQC",
	[57] = "EBADSLT",
	[59] = "EBFONT",
	[60] = "ENOSTR",
	[61] = "ENODATA",
	[62] = "ETIME",
	[63] = "ENOSR",
	[64] = "ENONET",
	[65] = "ENOPKG",
	[66] = "EREMOTE",
	[67] = "ENOLINK",
	[68] = "EADV",
	[69] = "ESRMNT",
	[70] = "ECOMM",
	[71] = "EPROTO",
	[72] = "EMULTIHOP",
	[73] = "EDOTDOT",
	[74] = "EBADMSG",
	[75] = "EOVERFLOW",
	[76] = "ENOTUNIQ",
	[77] = "EBADFD",
	[78] = "EREMCHG",
	[79] = "ELIBACC",
	[80] = "ELIBBAD",
	[81] = "ELIBSCN",
	[82] = "ELIBMAX",
	[83] = "ELIBEXEC",
	[84] = "EILSEQ",
	[85] = "ERESTART",
	[86] = "ESTRPIPE",
	[87] = "EUSERS",
	[88] = "ENOTSOCK",
	[89] = "EDESTADDRREQ",
	[90] = "EMSGSIZE",
	[91] = "EPROTOTYPE",
	[92] = "ENOPROTOOPT",
	[93] = "EPROTONOSUPPORT",
	[94] = "ESOCKTNOSUPPORT",
	[95] = "EOPNOTSUPP",
	[96] = "EPFNOSUPPORT",
	[97] = "EAFNOSUPPORT",
	[98] = "EADDRINUSE",
	[99] = "EADDRNOTAVAIL",
	[100] = "ENETDOWN",
	[101] = "ENETUNREACH",
	[102] = "ENETRESET",
	[103] = "ECONNABORTED",
	[104] = "ECONNRESET",
	[105] = "ENOBUFS",
	[106] = "EISCONN",
	[107] = "ENOTCONN",
	[108] = "ESHUTDOWN",
	[109] = "ETOOMANYREFS",
	[110] = "ETIMEDOUT",
	[111] = "ECONNREFUSED",
	[112] = "EHOSTDOWN",
	[113] = "EHOSTUNREACH",
	[114] = "EALREADY",
	[115] = "EINPROGRESS",
	[116] = "ESTALE",
	[117] = "EUCLEAN",
	[118] = "ENOTNAM",
	[119] = "ENAVAIL",
	[120] = "EISNAM",
	[121] = "EREMOTEIO",
	[122] = "EDQUOT",
	[123] = "ENOMEDIUM",
	[124] = "EMEDIUMTYPE",
	[125] = "ECANCELED",
	[126] = "ENOKEY",
	[127] = "EKEYEXPIRED",
	[128] = "EKEYREVOKED",
	[129] = "EKEYREJECTED",
	[130] = "EOWNERDEAD",
	[131] = "ENOTRECOVERABLE",
	[132] = "ERFKILL",
	[133] = "EHWPOISON",
	[512] = "ERESTARTSYS",
	[513] = "ERESTARTNOINTR",
	[514] = "ERESTARTNOHAND",
	[515] = "ENOIOCTLCMD",
	[516] = "ERESTART_RESTARTBLOCK",
	[517] = "EPROBE_DEFER",
	[518] = "EOPENSTALE",
	[519] = "ENOPARAM",
	[521] = "EBADHANDLE",
	[522] = "ENOTSYNC",
	[523] = "EBADCOOKIE",
	[524] = "ENOTSUPP",
	[525] = "ETOOSMALL",
	[526] = "ESERVERFAULT",
	[527] = "EBADTYPE",
	[528] = "EJUKEBOX",
	[529] = "EIOCBQUEUED",
	[530] = "ERECALLCONFLICT",
};

#define N_ERRNO	(int)(sizeof(errno_names) / sizeof(errno_names[0]))

const char *valfmt_errno_name(int e)
{
	return e > 0 && e < N_ERRNO ? errno_names[e] : NULL;
}

int valfmt_errno_by_name(const char *s, size_t n)
{
	for (int e = 1; e < N_ERRNO; e++)
		if (errno_names[e] && strlen(errno_names[e]) == n && !memcmp(errno_names[e], s, n))
			return e;
	/* the aliases <errno.h> has */
	if (n == 11 && !memcmp(s, "EWOULDBLOCK", n))
		return 11;
	if (n == 9 && !memcmp(s, "EDEADLOCK", n))
		return 35;
	return 0;
}

/* snprintf()'s result as the bytes it left in a buffer of len */
static size_t put(size_t len, int n)
{
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len ? len - 1 : 0;
}

/*
 * The errno that v names, or NULL. IS_ERR_VALUE(): the last 4095 values
 * are errors, at the value's own width (v comes sign-extended from it). In
 * user space -1 is the C library's failure return, the reason in errno:
 * there it is the number, while -2..-4095 are named, as libraries that
 * return -errno (liburing, libbpf, systemd's) mean them.
 */
static const char *errno_of(uint64_t v, unsigned int flags)
{
	int64_t e = (int64_t)v;

	if (e >= 0 || e < -4095 || (e == -1 && (flags & VALFMT_USER)))
		return NULL;
	return valfmt_errno_name((int)-e);
}

size_t valfmt_scalar(enum spec_type t, uint64_t v, unsigned int flags, char *buf, size_t len)
{
	const char *name;

	switch (t) {
	case SPEC_T_IPV4:
		/* the slot holds the address's bytes in network order */
		return put(len, snprintf(buf, len, "%u.%u.%u.%u", (unsigned)(v & 0xff),
					      (unsigned)(v >> 8 & 0xff), (unsigned)(v >> 16 & 0xff),
					      (unsigned)(v >> 24 & 0xff)));
	case SPEC_T_BE16:
		return put(len, snprintf(buf, len, "%u", (unsigned)ntohs((uint16_t)v)));
	case SPEC_T_BE32:
		return put(len, snprintf(buf, len, "%u", (unsigned)ntohl((uint32_t)v)));
	case SPEC_T_ERRNO:
		name = errno_of(v, flags);
		if (name)
			return put(len, snprintf(buf, len, "-%s", name));
		return put(len, snprintf(buf, len, "%" PRId64, (int64_t)v));
	default:
		return 0;
	}
}

size_t valfmt_ipv6(const uint8_t b[VALFMT_IPV6_LEN], char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, b, buf, (socklen_t)len))
		return 0;
	return strlen(buf);
}

bool valfmt_json_is_string(enum spec_type t, uint64_t v, unsigned int flags)
{
	if (t == SPEC_T_IPV4 || t == SPEC_T_IPV6)
		return true;
	return t == SPEC_T_ERRNO && errno_of(v, flags);
}

/* Decimal, or hex after 0x, up to max (lex.h's reader). */
static int parse_num(const char *s, const char *e, uint64_t max, uint64_t *out)
{
	bool hex = e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	return parse_uint(s + (hex ? 2 : 0), e, hex ? 16 : 10, out) && *out <= max ? 0 : -1;
}

static int parse_ipv4(const char *s, const char *e, int64_t *out)
{
	uint64_t addr = 0, byte;
	const char *dot;

	for (int i = 0; i < 4; i++) {
		dot = s;
		while (dot < e && *dot != '.')
			dot++;
		if ((i < 3) != (dot < e) || parse_num(s, dot, 255, &byte))
			return -1;
		addr |= byte << (8 * i);
		s = dot + 1;
	}
	*out = (int64_t)addr;
	return 0;
}

int valfmt_parse(enum spec_type t, const char *s, const char *e, int64_t *out,
		 const char **why)
{
	uint64_t v;
	int err;

	switch (t) {
	case SPEC_T_IPV4:
		*why = "an ipv4 field compares with an address: a.b.c.d";
		return parse_ipv4(s, e, out) ? -1 : 0;
	case SPEC_T_BE16:
	case SPEC_T_BE32:
		*why = t == SPEC_T_BE16 ? "a be16 field compares with a number of 0..65535"
					: "a be32 field compares with a number of 0..4294967295";
		if (parse_num(s, e, t == SPEC_T_BE16 ? 0xffff : 0xffffffffu, &v))
			return -1;
		*out = t == SPEC_T_BE16 ? (int64_t)htons((uint16_t)v) : (int64_t)htonl((uint32_t)v);
		return 0;
	case SPEC_T_ERRNO:
		if (e - s < 2 || s[0] != '-' || s[1] != 'E')
			return 1;	/* a number */
		err = valfmt_errno_by_name(s + 1, (size_t)(e - s - 1));
		*why = "not an errno name (ENOENT, EAGAIN, ...)";
		if (!err)
			return -1;
		*out = -err;
		return 0;
	default:
		return 1;
	}
}
