// SPDX-License-Identifier: GPL-2.0
/*
 * ICRC: the headers are copied once into a small buffer where their variant
 * fields are set to ones; the CRC runs over that buffer, then straight
 * over the rest of the packet.
 *
 * The CRC itself is computed one of two ways, whichever is faster on the
 * CPU the module runs on (Documentation/datapath.rst, "The CRC"): the
 * kernel's crc32_le(), or sroce_crc32_table(), which takes sixteen bytes
 * a step through sixteen tables.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/crc32.h>
#include <linux/if_ether.h>
#include <linux/export.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/udp.h>

#include "icrc.h"
#include "wire.h"

/* The CRC-32 polynomial, bit-reversed: bit 0 is the x^31 term. */
#define SROCE_CRC32_POLY	0xedb88320

/* Bytes one step of sroce_crc32_table() folds, and its tables. */
#define SROCE_CRC_STEP	16

/*
 * sroce_crc_tab[k][b]: the CRC remainder of byte b followed by k zero
 * bytes, so that one step folds sixteen bytes by table lookups alone.
 */
static u32 sroce_crc_tab[SROCE_CRC_STEP][256] __ro_after_init;

/* Whether sroce_crc32_table() is the faster: set once, at module load. */
static bool sroce_crc_use_table __ro_after_init;

/* The icrc_impl parameter: the way asked for at load, then the one taken. */
enum sroce_crc_way {
	SROCE_CRC_AUTO,
	SROCE_CRC_KERNEL,
	SROCE_CRC_TABLE,
};

static const char * const sroce_crc_ways[] = {
	[SROCE_CRC_AUTO] = "auto",
	[SROCE_CRC_KERNEL] = "kernel",
	[SROCE_CRC_TABLE] = "table",
};

static int sroce_crc_way = SROCE_CRC_AUTO;

/* Anything but the three names fails the module's load: -EINVAL. */
static int sroce_crc_way_set(const char *val, const struct kernel_param *kp)
{
	int way = sysfs_match_string(sroce_crc_ways, val);

	if (way < 0)
		return -EINVAL;
	sroce_crc_way = way;
	return 0;
}

static int sroce_crc_way_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n", sroce_crc_ways[sroce_crc_way]);
}

static const struct kernel_param_ops sroce_crc_way_ops = {
	.set = sroce_crc_way_set,
	.get = sroce_crc_way_get,
};

module_param_cb(icrc_impl, &sroce_crc_way_ops, NULL, 0444);
MODULE_PARM_DESC(icrc_impl, "how the ICRC is computed: auto (the faster, measured at load), kernel or table");

/* The share of the four bytes of @v, followed by @k zero bytes. */
static inline u32 sroce_crc_word(const u32 (*t)[256], unsigned int k, u32 v)
{
	return t[k + 3][v & 0xff] ^ t[k + 2][(v >> 8) & 0xff] ^
	       t[k + 1][(v >> 16) & 0xff] ^ t[k][v >> 24];
}

/* Eight bytes at @p, of any alignment, little-endian: one load on x86. */
static inline u64 sroce_crc_load(const u8 *p)
{
	__le64 v;

	memcpy(&v, p, sizeof(v));
	return le64_to_cpu(v);
}

u32 sroce_crc32_table(u32 crc, const u8 *p, size_t len)
{
	const u32 (*t)[256] = sroce_crc_tab;
	u64 a, b;

	for (; len >= SROCE_CRC_STEP; p += SROCE_CRC_STEP, len -= SROCE_CRC_STEP) {
		a = sroce_crc_load(p);
		b = sroce_crc_load(p + 8);
		crc = sroce_crc_word(t, 12, crc ^ (u32)a) ^
		      sroce_crc_word(t, 8, a >> 32) ^
		      sroce_crc_word(t, 4, (u32)b) ^
		      sroce_crc_word(t, 0, b >> 32);
	}
	while (len--)
		crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
	return crc;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_crc32_table);

static u32 sroce_crc32_kernel(u32 crc, const u8 *p, size_t len)
{
	return crc32_le(crc, p, len);
}

static u32 sroce_crc32(u32 crc, const u8 *p, size_t len)
{
	if (sroce_crc_use_table)
		return sroce_crc32_table(crc, p, len);
	return sroce_crc32_kernel(crc, p, len);
}

/* The best time of a few rounds of @fn over @len bytes, in ns per call. */
static u64 __init sroce_crc_time(u32 (*fn)(u32 crc, const u8 *p, size_t len),
				 const u8 *buf, size_t len)
{
	u64 best = U64_MAX, t0;
	int round, i;
	u32 crc;

	for (round = 0; round < 5; round++) {
		t0 = ktime_get_ns();
		for (i = 0; i < 8; i++) {
			crc = fn(~0U, buf, len);
			/* Computed, though nobody reads it. */
			OPTIMIZER_HIDE_VAR(crc);
		}
		best = min(best, ktime_get_ns() - t0);
	}
	return div_u64(best, 8);
}

void __init sroce_icrc_init(void)
{
	const size_t len = 4096;
	u64 kernel_ns, table_ns;
	u32 b, k, crc;
	u8 *buf;

	for (b = 0; b < 256; b++) {
		crc = b;
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ SROCE_CRC32_POLY : crc >> 1;
		sroce_crc_tab[0][b] = crc;
	}
	for (k = 1; k < SROCE_CRC_STEP; k++)
		for (b = 0; b < 256; b++)
			sroce_crc_tab[k][b] = (sroce_crc_tab[k - 1][b] >> 8) ^
				sroce_crc_tab[0][sroce_crc_tab[k - 1][b] & 0xff];

	if (sroce_crc_way != SROCE_CRC_AUTO) {
		sroce_crc_use_table = sroce_crc_way == SROCE_CRC_TABLE;
		pr_info("ICRC: the %s CRC, as asked\n", sroce_crc_ways[sroce_crc_way]);
		return;
	}
	buf = kmalloc(len, GFP_KERNEL);
	if (!buf) {
		sroce_crc_way = SROCE_CRC_KERNEL;
		return;
	}
	get_random_bytes(buf, len);
	kernel_ns = sroce_crc_time(sroce_crc32_kernel, buf, len);
	table_ns = sroce_crc_time(sroce_crc32_table, buf, len);
	kfree(buf);
	sroce_crc_use_table = table_ns < kernel_ns;
	sroce_crc_way = sroce_crc_use_table ? SROCE_CRC_TABLE : SROCE_CRC_KERNEL;
	pr_info("ICRC: the %s CRC (4 KiB: kernel %llu ns, table %llu ns)\n",
		sroce_crc_ways[sroce_crc_way], kernel_ns, table_ns);
}

/* Longest masked span: IPv6 header, UDP header, BTH. */
#define SROCE_ICRC_MASKED_MAX	(sizeof(struct ipv6hdr) + sizeof(struct udphdr) + \
				 sizeof(struct sroce_bth))

/*
 * The CRC over the absent LRH and the masked headers up to the end of the
 * BTH; the rest of the packet is covered as it is. @len: contiguous bytes
 * at @l3. @udp: RoCEv2, an IP and a UDP header before the BTH; else
 * RoCE v1, a GRH (laid out as an IPv6 header, masked the same way).
 */
static int sroce_icrc_start(const u8 *l3, unsigned int len, bool udp,
			    u32 *crc, unsigned int *span)
{
	static const u8 lrh_ones[8] = { 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff };
	u8 hdr[SROCE_ICRC_MASKED_MAX];
	unsigned int iplen, udplen = udp ? sizeof(struct udphdr) : 0;

	if (len < sizeof(struct iphdr))
		return -EINVAL;
	switch (l3[0] >> 4) {
	case 4:
		iplen = (l3[0] & 0x0f) * 4;
		if (!udp || iplen != sizeof(struct iphdr))
			return -EINVAL;	/* RoCEv2 sends no IP options */
		break;
	case 6:
		iplen = sizeof(struct ipv6hdr);
		break;
	default:
		return -EINVAL;
	}
	*span = iplen + udplen + sizeof(struct sroce_bth);
	if (len < *span)
		return -EINVAL;

	memcpy(hdr, l3, *span);
	if (iplen == sizeof(struct iphdr)) {
		struct iphdr *ip4 = (struct iphdr *)hdr;

		ip4->tos = 0xff;
		ip4->ttl = 0xff;
		memset(&ip4->check, 0xff, sizeof(ip4->check));
	} else {
		/* IPv6 and the GRH: traffic class, flow label, hop limit. */
		struct ipv6hdr *ip6 = (struct ipv6hdr *)hdr;

		ip6->priority = 0xf;
		memset(ip6->flow_lbl, 0xff, sizeof(ip6->flow_lbl));
		ip6->hop_limit = 0xff;
	}
	if (udp)
		memset(&((struct udphdr *)(hdr + iplen))->check, 0xff,
		       sizeof(__sum16));
	hdr[iplen + udplen + SROCE_BTH_VARIANT_BYTE] = 0xff;

	*crc = sroce_crc32(~0U, lrh_ones, sizeof(lrh_ones));
	*crc = sroce_crc32(*crc, hdr, *span);
	return 0;
}

/* The ICRC of a contiguous packet; @udp as for sroce_icrc_start(). */
static int sroce_icrc_flat(const u8 *l3, unsigned int len, bool udp, u32 *icrc)
{
	unsigned int span;
	u32 crc;
	int err;

	err = sroce_icrc_start(l3, len, udp, &crc, &span);
	if (err)
		return err;
	crc = sroce_crc32(crc, l3 + span, len - span);
	*icrc = ~crc;
	return 0;
}

int sroce_icrc(const u8 *l3, unsigned int len, u32 *icrc)
{
	return sroce_icrc_flat(l3, len, true, icrc);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_icrc);

int sroce_icrc_v1(const u8 *grh, unsigned int len, u32 *icrc)
{
	return sroce_icrc_flat(grh, len, false, icrc);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_icrc_v1);

u32 sroce_icrc_rxe_flush(u32 icrc, const u8 *bth, unsigned int len)
{
	return ~sroce_crc32(~icrc, bth, len);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_icrc_rxe_flush);

int sroce_icrc_skb(struct sk_buff *skb, u32 *icrc)
{
	const u8 *l3 = skb_network_header(skb);
	unsigned int before = skb->data - l3, span, from, todo, done, n;
	struct skb_seq_state seq;
	const u8 *p;
	u32 crc;
	int err;

	if (skb->len < SROCE_ICRC_BYTES)
		return -EINVAL;
	err = sroce_icrc_start(l3, before + skb_headlen(skb),
			       skb->protocol != htons(ETH_P_IBOE), &crc, &span);
	if (err)
		return err;
	/*
	 * The headers were linear; the payload may sit in page fragments. The
	 * CRC reads each piece where it lies: a bounce buffer cost a copy of
	 * every received byte, and a CRC call (an FPU section) per 256 bytes.
	 */
	from = span - before;
	todo = skb->len - SROCE_ICRC_BYTES;
	todo = todo > from ? todo - from : 0;
	skb_prepare_seq_read(skb, from, from + todo, &seq);
	for (done = 0; done < todo; done += n) {
		n = skb_seq_read(done, &p, &seq);
		if (!n)
			break;	/* fragments the CPU cannot read */
		/* A piece may run past the end asked for: over the ICRC. */
		n = min(n, todo - done);
		crc = sroce_crc32(crc, p, n);
	}
	skb_abort_seq_read(&seq);
	if (done < todo)
		return -EINVAL;
	*icrc = ~crc;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_icrc_skb);
