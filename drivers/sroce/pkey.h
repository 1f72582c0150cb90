/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Partitions (IBTA 10.9): the port's P_Key table, the membership rule a
 * packet's P_Key is checked by, and the administrator's sysfs file that
 * fills the table (pkey.c).
 */
#ifndef _SROCE_PKEY_H
#define _SROCE_PKEY_H

#include <linux/compiler.h>
#include <linux/types.h>

/* Bit 15 of a P_Key: full membership; the low 15 bits: the partition. */
#define SROCE_PKEY_FULL		0x8000
#define SROCE_PKEY_BASE		0x7fff
/* The default partition, full member: entry 0 of every new table. */
#define SROCE_PKEY_DEFAULT	0xffff
#define SROCE_PKEY_TABLE_LEN	16

struct attribute_group;

/**
 * struct sroce_pkey_table - a port's P_Key table
 * @entry: the P_Keys; 0 is an empty entry. Each is written with
 *	WRITE_ONCE() by sroce_pkey_set() and read with READ_ONCE() on the
 *	packet path, without a lock: a packet sees each entry either before
 *	or after a change.
 */
struct sroce_pkey_table {
	u16 entry[SROCE_PKEY_TABLE_LEN];
};

/**
 * sroce_pkey_match() - the membership rule of IBTA 10.9.3
 * @pkt: the P_Key a packet carries
 * @own: the P_Key of the QP (its table entry) it is checked against
 *
 * The two match when their partitions (low 15 bits) are equal and not 0,
 * and at least one of them is a full member (bit 15): two limited members
 * of a partition do not talk to each other.
 *
 * Context: any.
 * Return: true when a packet with @pkt may reach a QP holding @own.
 */
bool sroce_pkey_match(u16 pkt, u16 own);

/**
 * sroce_pkey_table_init() - a new port's table: the default partition only
 * @t: the table
 *
 * Context: any; before anyone else sees @t.
 */
void sroce_pkey_table_init(struct sroce_pkey_table *t);

/**
 * sroce_pkey_set() - check and store one entry of a table
 * @t: the table
 * @index: the entry
 * @pkey: its new P_Key, or 0 to empty it
 *
 * Context: any. Writers of different entries need no lock; the RDMA core
 * must be told (IB_EVENT_PKEY_CHANGE) by the caller.
 * Return: 0; -ERANGE for @index past the table; -EINVAL for a full
 * membership of partition 0 (0x8000), which no packet may carry.
 */
int sroce_pkey_set(struct sroce_pkey_table *t, u32 index, u16 pkey);

/**
 * sroce_pkey_parse() - read an administrator's "INDEX P_KEY" line
 * @buf: what was written, NUL-terminated
 * @index: the entry it names
 * @pkey: the P_Key it gives that entry
 *
 * Both numbers are decimal, or hex with 0x; a trailing newline is fine,
 * anything else is not.
 *
 * Context: any.
 * Return: 0, -EINVAL for a line that is not two such numbers, -ERANGE
 * for a P_Key past 16 bits.
 */
int sroce_pkey_parse(const char *buf, u32 *index, u16 *pkey);

/**
 * sroce_pkey_find() - the entry a packet's P_Key matches
 * @t: the table
 * @pkt: the packet's P_Key
 *
 * For the GSI QP, which takes packets of every partition of its port.
 *
 * Context: any (reads each entry once, without a lock).
 * Return: the lowest index of an entry @pkt matches (sroce_pkey_match()),
 * or -ENOENT.
 */
int sroce_pkey_find(const struct sroce_pkey_table *t, u16 pkt);

/**
 * sroce_pkey_get() - one entry of a table
 * @t: the table
 * @index: the entry; past the table reads as empty
 *
 * Context: any.
 * Return: the P_Key, 0 when the entry is empty.
 */
static inline u16 sroce_pkey_get(const struct sroce_pkey_table *t, u32 index)
{
	return index < SROCE_PKEY_TABLE_LEN ? READ_ONCE(t->entry[index]) : 0;
}

/* The device's sysfs group: the pkey_table file (ib_device_ops). */
extern const struct attribute_group sroce_pkey_attr_group;

#endif /* _SROCE_PKEY_H */
