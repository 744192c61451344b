// SPDX-License-Identifier: GPL-2.0

//! Message framing on a UNIX stream socket, with file descriptors passed as
//! SCM_RIGHTS ancillary data.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;

use super::proto::{Header, HEADER_SIZE, MAX_DATA_XFER, MAX_MSG_FDS};

/// A received message.
#[derive(Debug)]
pub struct Message {
    pub header: Header,
    pub payload: Vec<u8>,
    pub fds: Vec<OwnedFd>,
}

/// Largest message we accept: a full data transfer plus its fixed fields.
const MAX_MESSAGE: usize = MAX_DATA_XFER + 64;

/// Receives into `buf` with `recvmsg`, collecting passed fds.
fn recv_with_fds(sock: &UnixStream, buf: &mut [u8], fds: &mut Vec<OwnedFd>) -> io::Result<usize> {
    // SAFETY: CMSG_SPACE is a pure size computation.
    let space = unsafe { libc::CMSG_SPACE((MAX_MSG_FDS * std::mem::size_of::<RawFd>()) as u32) } as usize;
    // u64 storage keeps the control buffer aligned for cmsghdr.
    let mut control = vec![0u64; space.div_ceil(8)];
    let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    // SAFETY: zeroed msghdr is a valid "empty" value; fields set below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: msg points at live buffers sized as declared.
    let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: walking the control buffer the kernel just filled, with the
    // libc CMSG helpers, bounded by msg_controllen.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(cmsg) as *const RawFd;
                let len = (*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize;
                for i in 0..len / std::mem::size_of::<RawFd>() {
                    fds.push(OwnedFd::from_raw_fd(data.add(i).read_unaligned()));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    if msg.msg_flags & libc::MSG_CTRUNC != 0 {
        log::warn!("vfio-user: file descriptors truncated (more than {MAX_MSG_FDS})");
    }
    Ok(n as usize)
}

/// Reads one message. `Ok(None)` on a clean end of stream.
pub fn read_message(sock: &mut UnixStream) -> io::Result<Option<Message>> {
    let mut hdr = [0u8; HEADER_SIZE];
    let mut fds = Vec::new();
    let mut got = 0;
    while got < HEADER_SIZE {
        let n = recv_with_fds(sock, &mut hdr[got..], &mut fds)?;
        if n == 0 {
            return if got == 0 { Ok(None) } else { Err(io::Error::new(io::ErrorKind::UnexpectedEof, "short header")) };
        }
        got += n;
    }
    let header = Header::parse(&hdr);
    let size = header.size as usize;
    if !(HEADER_SIZE..=MAX_MESSAGE).contains(&size) {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("bad message size {size}")));
    }
    let mut payload = vec![0u8; size - HEADER_SIZE];
    sock.read_exact(&mut payload)?;
    Ok(Some(Message { header, payload, fds }))
}

/// Sends a message made of `header` (size filled in) and `payload`.
pub fn write_message(sock: &mut UnixStream, mut header: Header, payload: &[u8]) -> io::Result<()> {
    header.size = (HEADER_SIZE + payload.len()) as u32;
    let mut buf = Vec::with_capacity(HEADER_SIZE + payload.len());
    buf.extend_from_slice(&header.to_bytes());
    buf.extend_from_slice(payload);
    sock.write_all(&buf)
}

/// Sends a message with file descriptors (used by the test client).
pub fn write_message_with_fds(
    sock: &mut UnixStream,
    mut header: Header,
    payload: &[u8],
    fds: &[RawFd],
) -> io::Result<()> {
    if fds.is_empty() {
        return write_message(sock, header, payload);
    }
    header.size = (HEADER_SIZE + payload.len()) as u32;
    let mut buf = Vec::with_capacity(HEADER_SIZE + payload.len());
    buf.extend_from_slice(&header.to_bytes());
    buf.extend_from_slice(payload);
    let bytes = std::mem::size_of_val(fds);
    // SAFETY: size computations only.
    let space = unsafe { libc::CMSG_SPACE(bytes as u32) } as usize;
    let mut control = vec![0u64; space.div_ceil(8)];
    let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    // SAFETY: as in recv_with_fds; the control buffer holds one SCM_RIGHTS
    // message carrying `fds`.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(bytes as u32) as _;
        std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(cmsg) as *mut RawFd, fds.len());
        let n = libc::sendmsg(sock.as_raw_fd(), &msg, 0);
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        if (n as usize) < buf.len() {
            sock.write_all(&buf[n as usize..])?;
        }
    }
    Ok(())
}
