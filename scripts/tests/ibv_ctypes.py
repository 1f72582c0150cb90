# SPDX-License-Identifier: GPL-2.0
"""The few libibverbs calls a test needs that the guest's pyverbs lacks,
through ctypes: a UD QP of its own (context, PD, CQ, QP) and
ibv_attach_mcast()/ibv_detach_mcast() on it. pyverbs keeps its ibv_qp
pointer out of Python's reach, hence a QP of our own here.

usage: with UdQp('sroce0') as qp: err = qp.attach(gid_bytes)"""
import ctypes
import errno

IBV_QPT_UD = 4


class _Cap(ctypes.Structure):
    _fields_ = [('max_send_wr', ctypes.c_uint32), ('max_recv_wr', ctypes.c_uint32),
                ('max_send_sge', ctypes.c_uint32), ('max_recv_sge', ctypes.c_uint32),
                ('max_inline_data', ctypes.c_uint32)]


class _QpInitAttr(ctypes.Structure):
    _fields_ = [('qp_context', ctypes.c_void_p), ('send_cq', ctypes.c_void_p),
                ('recv_cq', ctypes.c_void_p), ('srq', ctypes.c_void_p),
                ('cap', _Cap), ('qp_type', ctypes.c_int), ('sq_sig_all', ctypes.c_int)]


class _Gid(ctypes.Structure):
    _fields_ = [('raw', ctypes.c_uint8 * 16)]


def _lib():
    lib = ctypes.CDLL('libibverbs.so.1', use_errno=True)
    ptr = ctypes.c_void_p
    for name, res, args in (
            ('ibv_get_device_list', ctypes.POINTER(ptr), [ctypes.POINTER(ctypes.c_int)]),
            ('ibv_free_device_list', None, [ctypes.POINTER(ptr)]),
            ('ibv_get_device_name', ctypes.c_char_p, [ptr]),
            ('ibv_open_device', ptr, [ptr]),
            ('ibv_close_device', ctypes.c_int, [ptr]),
            ('ibv_alloc_pd', ptr, [ptr]),
            ('ibv_dealloc_pd', ctypes.c_int, [ptr]),
            ('ibv_create_cq', ptr, [ptr, ctypes.c_int, ptr, ptr, ctypes.c_int]),
            ('ibv_destroy_cq', ctypes.c_int, [ptr]),
            ('ibv_create_qp', ptr, [ptr, ctypes.POINTER(_QpInitAttr)]),
            ('ibv_destroy_qp', ctypes.c_int, [ptr]),
            ('ibv_attach_mcast', ctypes.c_int, [ptr, ctypes.POINTER(_Gid), ctypes.c_uint16]),
            ('ibv_detach_mcast', ctypes.c_int, [ptr, ctypes.POINTER(_Gid), ctypes.c_uint16])):
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


class UdQp:
    """A UD QP (in RESET: enough to attach) on device @name, with the
    context, PD and CQ under it; close() frees them in reverse order."""

    def __init__(self, name):
        self.lib = lib = _lib()
        self.ctx = self.pd = self.cq = self.qp = None
        n = ctypes.c_int(0)
        devs = lib.ibv_get_device_list(ctypes.byref(n))
        if not devs:
            raise OSError(ctypes.get_errno(), 'ibv_get_device_list')
        try:
            for i in range(n.value):
                if lib.ibv_get_device_name(devs[i]).decode() == name:
                    self.ctx = lib.ibv_open_device(devs[i])
                    break
        finally:
            lib.ibv_free_device_list(devs)
        if not self.ctx:
            raise OSError(ctypes.get_errno() or errno.ENODEV, 'cannot open ' + name)
        try:
            self.pd = self._made(lib.ibv_alloc_pd(self.ctx), 'PD')
            self.cq = self._made(lib.ibv_create_cq(self.ctx, 16, None, None, 0), 'CQ')
            attr = _QpInitAttr(send_cq=self.cq, recv_cq=self.cq, qp_type=IBV_QPT_UD,
                               cap=_Cap(max_send_wr=4, max_recv_wr=4, max_send_sge=1,
                                        max_recv_sge=1))
            self.qp = self._made(lib.ibv_create_qp(self.pd, ctypes.byref(attr)), 'QP')
        except OSError:
            self.close()
            raise

    @staticmethod
    def _made(obj, what):
        if not obj:
            raise OSError(ctypes.get_errno(), 'no ' + what)
        return obj

    @staticmethod
    def _gid(raw):
        return _Gid((ctypes.c_uint8 * 16)(*raw))

    def attach(self, raw):
        """ibv_attach_mcast() of the group with GID bytes @raw: 0 or an errno."""
        return self.lib.ibv_attach_mcast(self.qp, ctypes.byref(self._gid(raw)), 0)

    def detach(self, raw):
        """ibv_detach_mcast(): 0 or an errno."""
        return self.lib.ibv_detach_mcast(self.qp, ctypes.byref(self._gid(raw)), 0)

    def close(self):
        for obj, free in ((self.qp, 'ibv_destroy_qp'), (self.cq, 'ibv_destroy_cq'),
                          (self.pd, 'ibv_dealloc_pd'), (self.ctx, 'ibv_close_device')):
            if obj:
                getattr(self.lib, free)(obj)
        self.ctx = self.pd = self.cq = self.qp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
