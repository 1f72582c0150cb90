# SPDX-License-Identifier: GPL-2.0
"""NVMe over Fabrics as the kernel consumer of endure.py's cycles: an
nvmet-rdma target listening on 192.0.2.1 (sroce0) and, in the same guest
and namespace, the nvme-rdma host connected to it through sroce0, so
that both the target's and the host's RDMA (kernel RC QPs, rdma_cm)
ride the device a cycle takes away. The host reads the namespace with
O_DIRECT in a loop (dd), whose progress shows in the block device's
statistics.

The target is set up once through configfs. A listener goes with its
device and nvmet does not listen again by itself after a removal (it
does after an address change), so after one the port's link to the
subsystem is made again before the next connect."""
import glob
import os
import shutil
import signal
import subprocess
import time

CFG = '/sys/kernel/config/nvmet'
NQN = 'sroce-endure'
SUBSYS = CFG + '/subsystems/' + NQN
PORT = CFG + '/ports/1'
LINK = PORT + '/subsystems/' + NQN
IMG = '/tmp/endure-ns.img'


def put(path, value):
    with open(path, 'w') as f:
        f.write(str(value))


def available():
    """nvmet-rdma, nvme-rdma and nvme-cli are there; configfs mounted."""
    if shutil.which('nvme') is None:
        return False
    if subprocess.run(['modprobe', '-a', 'nvmet-rdma', 'nvme-rdma'],
                      capture_output=True).returncode:
        return False
    if not os.path.isdir(CFG):
        subprocess.run(['mount', '-t', 'configfs', 'none', '/sys/kernel/config'],
                       capture_output=True)
    # nvme_core's timeouts stay at their defaults: a controller whose
    # netdev went must not wait them out (sroce flushes its QPs then).
    return os.path.isdir(CFG)


def timeouts():
    """nvme_core's admin and I/O timeouts, as text."""
    got = []
    for param in ('admin_timeout', 'io_timeout'):
        try:
            with open('/sys/module/nvme_core/parameters/' + param) as f:
                got.append('%s %s s' % (param.split('_')[0], f.read().strip()))
        except OSError:
            got.append('%s ?' % param)
    return ', '.join(got)


def target_up():
    """A 16 MiB file-backed namespace, open to any host, on RDMA port 1
    (192.0.2.1:4420; sroce0 must be up by now). Whether it was made
    now (so listens)."""
    if os.path.lexists(LINK):
        return False
    with open(IMG, 'wb') as f:
        f.truncate(16 << 20)
    os.makedirs(SUBSYS + '/namespaces/1', exist_ok=True)
    put(SUBSYS + '/attr_allow_any_host', 1)
    put(SUBSYS + '/namespaces/1/device_path', IMG)
    put(SUBSYS + '/namespaces/1/buffered_io', 1)
    put(SUBSYS + '/namespaces/1/enable', 1)
    os.makedirs(PORT, exist_ok=True)
    for attr, value in (('trtype', 'rdma'), ('adrfam', 'ipv4'),
                        ('traddr', '192.0.2.1'), ('trsvcid', 4420)):
        put(PORT + '/addr_' + attr, value)
    os.symlink(SUBSYS, LINK)
    return True


def target_down():
    """After the devices went: no listener left for the unlink to
    destroy (destroying one that accepted a connection makes lockdep
    report nvmet's configfs lock against rdma_cm's handler mutex)."""
    if os.path.lexists(LINK):
        os.unlink(LINK)
    for d in (PORT, SUBSYS + '/namespaces/1', SUBSYS):
        if os.path.isdir(d):
            os.rmdir(d)
    if os.path.exists(IMG):
        os.unlink(IMG)


def listening():
    out = subprocess.run(['rdma', 'resource', 'show', 'cm_id'], capture_output=True,
                         text=True).stdout
    return any('LISTEN' in line and ':4420' in line for line in out.splitlines())


def controllers():
    """The host's controllers of NQN."""
    found = []
    for d in glob.glob('/sys/class/nvme/nvme*'):
        try:
            with open(d + '/subsysnqn') as f:
                if f.read().strip() == NQN:
                    found.append(os.path.basename(d))
        except OSError:
            pass
    return found


def wait_running(until, proc, timeout):
    """Until @until() comes true, or process @proc exits, or @timeout
    seconds pass: whether @until() came true."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if until():
            return True
        if proc.poll() is not None:
            return until()
        time.sleep(0.05)
    return False


class Nvmf:
    """One connection of the host to the target, and dd reading it."""

    def __init__(self, deadline, relisten):
        """@relisten: sroce0 went since the last connection, and the
        port's listener with it. Otherwise a listener that an address
        change took down is nvmet's own to put back (within 5 s)."""
        self.deadline = deadline
        self.reader = None
        if relisten:
            os.unlink(LINK)
            os.symlink(SUBSYS, LINK)
        end = time.monotonic() + deadline
        while not listening():
            if time.monotonic() > end:
                raise RuntimeError('nvmet does not listen on 192.0.2.1:4420')
            time.sleep(0.2)
        r = subprocess.run(['timeout', str(deadline), 'nvme', 'connect', '-t', 'rdma',
                            '-a', '192.0.2.1', '-s', '4420', '-n', NQN,
                            '--ctrl-loss-tmo=5', '--reconnect-delay=1'],
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError('nvme connect: exit %d: %s' % (r.returncode,
                                                             r.stderr.strip()))
        self.block = self.find(deadline)
        self.reader = subprocess.Popen(
            ['sh', '-c', 'while dd if=/dev/%s of=/dev/null bs=64k iflag=direct '
             '2>/dev/null; do :; done' % self.block], start_new_session=True)

    @staticmethod
    def find(deadline):
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            for ctrl in controllers():
                for b in glob.glob('/sys/class/nvme/%s/nvme*n*' % ctrl):
                    if os.path.exists('/dev/' + os.path.basename(b)):
                        return os.path.basename(b)
            time.sleep(0.1)
        raise RuntimeError('no namespace of %s %d s after the connect' % (NQN, deadline))

    def reads(self):
        try:
            with open('/sys/block/%s/stat' % self.block) as f:
                return int(f.read().split()[0])
        except (OSError, IndexError, ValueError):
            return -1

    def wait(self, until):
        """Until @until() or the reader's exit or the deadline: whether
        @until() came true."""
        return wait_running(until, self.reader, self.deadline)

    def erred(self):
        """Wait (up to the deadline) for the reader to end, as it does on
        its first failed read."""
        try:
            self.reader.wait(self.deadline)
        except subprocess.TimeoutExpired:
            pass

    def gone(self):
        """After its device went: the reader ended and the controller was
        removed, within the deadline. None, or what is still there."""
        try:
            self.reader.wait(self.deadline)
        except subprocess.TimeoutExpired:
            return 'the NVMe-oF reader still runs %d s after sroce0 went' % self.deadline
        end = time.monotonic() + self.deadline
        while controllers():
            if time.monotonic() > end:
                return 'NVMe-oF controller %s still there' % ' '.join(controllers())
            time.sleep(0.1)
        return None

    def close(self):
        """Reader stopped, host disconnected (bounded). None, or what went
        wrong."""
        if self.reader is not None:
            try:
                os.killpg(self.reader.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.reader.wait()
        if not controllers():
            return None
        r = subprocess.run(['timeout', str(self.deadline), 'nvme', 'disconnect', '-n', NQN],
                           capture_output=True, text=True)
        if r.returncode or controllers():
            return 'nvme disconnect: exit %d, controllers %s' % (r.returncode, controllers())
        return None
