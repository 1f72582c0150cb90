/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IBTA opcodes (9.2.3): the top three bits name the transport, the low
 * five the operation. Which operations a transport has, which headers each
 * carries and in which order packets may follow each other are decided
 * here, once, for recv and for the engines.
 */
#ifndef _SROCE_OPCODE_H
#define _SROCE_OPCODE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

/* Transports: the opcode's bits 7-5. */
#define SROCE_TR_RC		0
#define SROCE_TR_UC		1
#define SROCE_TR_RD		2
#define SROCE_TR_UD		3
#define SROCE_TR_CNP		4
#define SROCE_TR_XRC		5
#define SROCE_OPCODE(tr, op)	((u8)((tr) << 5 | (op)))
#define SROCE_OPCODE_TR(opc)	((opc) >> 5)
#define SROCE_OPCODE_OP(opc)	((opc) & 0x1f)

/* Operations: the opcode's bits 4-0. */
enum sroce_op {
	SROCE_OP_SEND_FIRST		= 0x00,
	SROCE_OP_SEND_MIDDLE		= 0x01,
	SROCE_OP_SEND_LAST		= 0x02,
	SROCE_OP_SEND_LAST_IMM		= 0x03,
	SROCE_OP_SEND_ONLY		= 0x04,
	SROCE_OP_SEND_ONLY_IMM		= 0x05,
	SROCE_OP_WRITE_FIRST		= 0x06,
	SROCE_OP_WRITE_MIDDLE		= 0x07,
	SROCE_OP_WRITE_LAST		= 0x08,
	SROCE_OP_WRITE_LAST_IMM		= 0x09,
	SROCE_OP_WRITE_ONLY		= 0x0a,
	SROCE_OP_WRITE_ONLY_IMM		= 0x0b,
	SROCE_OP_READ_REQUEST		= 0x0c,
	SROCE_OP_READ_RESP_FIRST	= 0x0d,
	SROCE_OP_READ_RESP_MIDDLE	= 0x0e,
	SROCE_OP_READ_RESP_LAST		= 0x0f,
	SROCE_OP_READ_RESP_ONLY		= 0x10,
	SROCE_OP_ACK			= 0x11,
	SROCE_OP_ATOMIC_ACK		= 0x12,
	SROCE_OP_CMP_SWAP		= 0x13,
	SROCE_OP_FETCH_ADD		= 0x14,
	SROCE_OP_SEND_LAST_INV		= 0x16,
	SROCE_OP_SEND_ONLY_INV		= 0x17,
	SROCE_OP_FLUSH			= 0x1c,
	SROCE_OP_ATOMIC_WRITE		= 0x1d,
};

/* The CNP of RoCEv2 congestion control (annex A17.9.2). */
#define SROCE_OPCODE_CNP	SROCE_OPCODE(SROCE_TR_CNP, 0x01)

/**
 * enum sroce_op_class - what a packet does
 * @SROCE_CLASS_SEND: SEND and its variants
 * @SROCE_CLASS_WRITE: RDMA WRITE and its variants
 * @SROCE_CLASS_READ_REQ: RDMA READ request
 * @SROCE_CLASS_READ_RESP: RDMA READ response
 * @SROCE_CLASS_ACK: ACK or NAK
 * @SROCE_CLASS_ATOMIC: compare-and-swap or fetch-and-add request
 * @SROCE_CLASS_ATOMIC_ACK: atomic response
 * @SROCE_CLASS_CNP: congestion notification
 * @SROCE_CLASS_FLUSH: FLUSH request (IBTA 1.5)
 * @SROCE_CLASS_ATOMIC_WRITE: ATOMIC WRITE request (IBTA 1.5)
 */
enum sroce_op_class {
	SROCE_CLASS_SEND,
	SROCE_CLASS_WRITE,
	SROCE_CLASS_READ_REQ,
	SROCE_CLASS_READ_RESP,
	SROCE_CLASS_ACK,
	SROCE_CLASS_ATOMIC,
	SROCE_CLASS_ATOMIC_ACK,
	SROCE_CLASS_CNP,
	SROCE_CLASS_FLUSH,
	SROCE_CLASS_ATOMIC_WRITE,
};

/**
 * enum sroce_op_pos - where a packet stands in its message
 * @SROCE_POS_ONLY: the whole message
 * @SROCE_POS_FIRST: first of several
 * @SROCE_POS_MIDDLE: neither first nor last
 * @SROCE_POS_LAST: last of several
 */
enum sroce_op_pos {
	SROCE_POS_ONLY,
	SROCE_POS_FIRST,
	SROCE_POS_MIDDLE,
	SROCE_POS_LAST,
};

/* Extension headers and payload a packet carries, in wire order. */
#define SROCE_HDR_DETH		BIT(0)
#define SROCE_HDR_XRCETH	BIT(1)
#define SROCE_HDR_FETH		BIT(2)
#define SROCE_HDR_RETH		BIT(3)
#define SROCE_HDR_ATOMIC	BIT(4)
#define SROCE_HDR_IMM		BIT(5)
#define SROCE_HDR_IETH		BIT(6)
#define SROCE_HDR_AETH		BIT(7)
#define SROCE_HDR_ATOMIC_ACK	BIT(8)
#define SROCE_HDR_PAYLOAD	BIT(9)

/**
 * struct sroce_opcode_info - what an opcode means on its transport
 * @cls: &enum sroce_op_class
 * @pos: &enum sroce_op_pos
 * @hdrs: SROCE_HDR_* set, including those the transport adds
 * @hdr_len: bytes from the start of the BTH to the payload
 */
struct sroce_opcode_info {
	u8 cls;
	u8 pos;
	u16 hdrs;
	u8 hdr_len;
};

/**
 * sroce_opcode_init() - work out every opcode's meaning once
 *
 * Fills the table sroce_opcode_decode() reads; called at module load,
 * before anything can decode.
 *
 * Context: process, module init.
 */
void sroce_opcode_init(void);

/**
 * sroce_opcode_decode() - look an opcode up
 * @opcode: opcode from a BTH
 * @info: filled when the opcode is known
 *
 * Context: any.
 * Return: true when the opcode exists on a transport sroce speaks (RC, UC,
 * UD, XRC, or the CNP); false for RD, reserved and vendor opcodes.
 */
bool sroce_opcode_decode(u8 opcode, struct sroce_opcode_info *info);

/**
 * sroce_opcode_valid_for() - whether a QP of a type may receive an opcode
 * @opcode: opcode from a BTH
 * @type: the receiving QP's type
 *
 * Context: any.
 * Return: true when the opcode belongs to the QP type's transport.
 */
bool sroce_opcode_valid_for(u8 opcode, enum ib_qp_type type);

#define SROCE_OPCODE_NONE	(-1)

/**
 * sroce_opcode_next_ok() - whether a packet may follow another
 * @prev: the previous opcode of the same stream (requests arriving at a
 *	responder, or responses at a requester), or SROCE_OPCODE_NONE at
 *	the start of the stream or after a completed message
 * @next: the opcode that arrived
 *
 * Inside a multi-packet message only its MIDDLE or LAST packets may come;
 * between messages only a FIRST or ONLY packet. Both opcodes must be known
 * and of one transport.
 *
 * Context: any.
 * Return: true when @next may follow @prev.
 */
bool sroce_opcode_next_ok(int prev, u8 next);

#endif /* _SROCE_OPCODE_H */
