/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verbs that need no object of their own, and the install of every
 * object's verbs (verbs.c).
 */
#ifndef _SROCE_VERBS_H
#define _SROCE_VERBS_H

struct ib_device;

/**
 * sroce_set_verbs_ops() - install the verbs entry points on a device
 * @ibdev: device being set up, not yet registered
 *
 * Context: process context.
 */
void sroce_set_verbs_ops(struct ib_device *ibdev);

#endif /* _SROCE_VERBS_H */
