// SPDX-License-Identifier: GPL-2.0
/*
 * Partitions (IBTA 10.9). Each port has a table of SROCE_PKEY_TABLE_LEN
 * P_Keys; a new one holds the default partition, full member (0xffff), in
 * entry 0 and nothing else. A QP is in the partition of the entry its
 * pkey_index names: its packets carry that P_Key, and recv.c lets a
 * packet reach it only when the packet's P_Key matches the entry by the
 * membership rule below. The GSI QP takes a packet that matches any entry.
 *
 * The administrator fills the table through the device's sysfs file
 * pkey_table ("INDEX P_KEY" per write). Each write is one entry stored
 * with WRITE_ONCE(): packets built or checked after it see it, with no
 * lock on the packet path. The RDMA core keeps a cache of the table, which
 * the CM and rdma_cm look P_Keys up in: an IB_EVENT_PKEY_CHANGE tells it
 * to read the table again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/visibility.h>
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <rdma/ib_verbs.h>

#include "pkey.h"
#include "sroce.h"

bool sroce_pkey_match(u16 pkt, u16 own)
{
	u16 base = pkt & SROCE_PKEY_BASE;

	return base && base == (own & SROCE_PKEY_BASE) &&
	       ((pkt | own) & SROCE_PKEY_FULL);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_pkey_match);

void sroce_pkey_table_init(struct sroce_pkey_table *t)
{
	memset(t, 0, sizeof(*t));
	t->entry[0] = SROCE_PKEY_DEFAULT;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_pkey_table_init);

int sroce_pkey_set(struct sroce_pkey_table *t, u32 index, u16 pkey)
{
	if (index >= SROCE_PKEY_TABLE_LEN)
		return -ERANGE;
	if (pkey == SROCE_PKEY_FULL)
		return -EINVAL;
	WRITE_ONCE(t->entry[index], pkey);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_pkey_set);

int sroce_pkey_parse(const char *buf, u32 *index, u16 *pkey)
{
	char line[32], *rest, *word;
	int err;

	if (strscpy(line, buf, sizeof(line)) < 0)
		return -EINVAL;
	rest = strim(line);
	word = strsep(&rest, " \t");
	if (!rest)
		return -EINVAL;
	err = kstrtou32(word, 0, index);
	if (err)
		return err == -ERANGE ? -ERANGE : -EINVAL;
	/* Only blanks between the two numbers; kstrto*() refuse any after. */
	rest = skip_spaces(rest);
	err = kstrtou16(rest, 0, pkey);
	if (err)
		return err == -ERANGE ? -ERANGE : -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_pkey_parse);

int sroce_pkey_find(const struct sroce_pkey_table *t, u16 pkt)
{
	u32 i;

	for (i = 0; i < SROCE_PKEY_TABLE_LEN; i++)
		if (sroce_pkey_match(pkt, READ_ONCE(t->entry[i])))
			return i;
	return -ENOENT;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_pkey_find);

static struct sroce_dev *sroce_pkey_sdev(struct device *dev)
{
	return rdma_device_to_drv_device(dev, struct sroce_dev, ibdev);
}

/* One line per entry, "INDEX 0xPKEY", the empty ones too. */
static ssize_t pkey_table_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	const struct sroce_pkey_table *t = &sroce_pkey_sdev(dev)->pkeys;
	int len = 0;
	u32 i;

	for (i = 0; i < SROCE_PKEY_TABLE_LEN; i++)
		len += sysfs_emit_at(buf, len, "%u 0x%04x\n", i,
				     sroce_pkey_get(t, i));
	return len;
}

static ssize_t pkey_table_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct sroce_dev *sdev = sroce_pkey_sdev(dev);
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = SROCE_PORT_NUM,
		.event = IB_EVENT_PKEY_CHANGE,
	};
	u32 index;
	u16 pkey;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	err = sroce_pkey_parse(buf, &index, &pkey);
	if (err)
		return err;
	err = sroce_pkey_set(&sdev->pkeys, index, pkey);
	if (err)
		return err;
	/* The core's cache reads the table again (ib_find_cached_pkey()). */
	ib_dispatch_event(&ev);
	ibdev_info(&sdev->ibdev, "P_Key table entry %u is now 0x%04x\n",
		   index, pkey);
	return count;
}

static DEVICE_ATTR_RW(pkey_table);

static struct attribute *sroce_pkey_attrs[] = {
	&dev_attr_pkey_table.attr,
	NULL,
};

const struct attribute_group sroce_pkey_attr_group = {
	.attrs = sroce_pkey_attrs,
};
