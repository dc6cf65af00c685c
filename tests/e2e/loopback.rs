//! The HTTP/1.1 plumbing the model mocks share: a server on `127.0.0.1:<free port>`, one
//! thread per connection, keep-alive aware, request bodies by `Content-Length` or chunked,
//! responses always with a `Content-Length`; every request is recorded (method, target, JSON
//! body) and answered by the mock's handler.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::Value;

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// HTTP method.
    pub method: String,
    /// Request target (path and query).
    pub path: String,
    /// The JSON body (`Null` when there was none or it was not JSON).
    pub body: Value,
}

/// A response: status, content type and body.
pub type Reply = (u16, &'static str, Vec<u8>);

/// Answers one request (method, target, JSON body).
pub type Handler = dyn Fn(&str, &str, &Value) -> Reply + Send + Sync;

struct Shared {
    handler: Box<Handler>,
    requests: Mutex<Vec<Recorded>>,
    stop: AtomicBool,
}

/// The running server; stops when dropped.
pub struct Loopback {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Loopback {
    /// Starts a server on a free loopback port answering with `handler`.
    pub fn start(handler: Box<Handler>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let shared = Arc::new(Shared {
            handler,
            requests: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
        });
        let s = Arc::clone(&shared);
        thread::spawn(move || {
            for conn in listener.incoming() {
                if s.stop.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let s = Arc::clone(&s);
                thread::spawn(move || {
                    let _ = serve_connection(conn, &s);
                });
            }
        });
        Self { addr, shared }
    }

    /// Returns the address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Returns `http://127.0.0.1:<port>`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Returns every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().expect("requests lock").clone()
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

/// Serves requests on one connection until the peer closes it or asks to.
fn serve_connection(conn: TcpStream, shared: &Shared) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(300)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut writer = conn;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let line = line.trim_end();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_owned();
        let path = parts.next().unwrap_or("/").to_owned();
        let version = parts.next().unwrap_or("HTTP/1.1").to_owned();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h)? == 0 {
                return Ok(());
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
            }
        }
        let header = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        if header("expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) {
            writer.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        }
        let body = if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            read_chunked(&mut reader)?
        } else {
            let len: usize = header("content-length")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let mut b = vec![0; len];
            reader.read_exact(&mut b)?;
            b
        };
        let close = header("connection").is_some_and(|v| v.eq_ignore_ascii_case("close"))
            || (version == "HTTP/1.0"
                && !header("connection").is_some_and(|v| v.eq_ignore_ascii_case("keep-alive")));
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let (status, content_type, payload) = (shared.handler)(&method, &path, &body);
        shared
            .requests
            .lock()
            .expect("requests lock")
            .push(Recorded {
                method: method.clone(),
                path,
                body,
            });
        let reason = if status == 200 { "OK" } else { "Not Found" };
        let mut head = format!(
            "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nrequest-id: req_e2e\r\n",
            payload.len()
        );
        head.push_str(if close {
            "connection: close\r\n"
        } else {
            "connection: keep-alive\r\n"
        });
        head.push_str("\r\n");
        writer.write_all(head.as_bytes())?;
        if method != "HEAD" {
            writer.write_all(&payload)?;
        }
        writer.flush()?;
        if close {
            return Ok(());
        }
    }
}

fn read_chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        if size == 0 {
            // Trailers end with an empty line.
            loop {
                let mut t = String::new();
                if reader.read_line(&mut t)? == 0 || t.trim_end().is_empty() {
                    return Ok(body);
                }
            }
        }
        let mut chunk = vec![0; size];
        reader.read_exact(&mut chunk)?;
        body.extend_from_slice(&chunk);
        let mut crlf = String::new();
        reader.read_line(&mut crlf)?;
    }
}

/// Test helpers: a client for one keep-alive connection.
#[cfg(test)]
pub mod client {
    use super::*;

    /// One connection to a loopback server.
    pub struct Conn {
        reader: BufReader<TcpStream>,
        writer: TcpStream,
    }

    impl Conn {
        /// Connects to `addr`.
        pub fn open(addr: SocketAddr) -> Self {
            let writer = TcpStream::connect(addr).unwrap();
            let reader = BufReader::new(writer.try_clone().unwrap());
            Self { reader, writer }
        }

        /// Posts a JSON body (in two chunks when `chunked`) and returns status line and body.
        pub fn post(&mut self, target: &str, body: &Value, chunked: bool) -> (String, String) {
            let body = body.to_string();
            if chunked {
                write!(
                    self.writer,
                    "POST {target} HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n"
                )
                .unwrap();
                let (a, b) = body.split_at(body.len() / 2);
                for part in [a, b] {
                    write!(self.writer, "{:x}\r\n{part}\r\n", part.len()).unwrap();
                }
                self.writer.write_all(b"0\r\n\r\n").unwrap();
            } else {
                write!(
                    self.writer,
                    "POST {target} HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n{body}",
                    body.len()
                )
                .unwrap();
            }
            self.read_response()
        }

        fn read_response(&mut self) -> (String, String) {
            let mut status = String::new();
            self.reader.read_line(&mut status).unwrap();
            let mut len = 0;
            loop {
                let mut h = String::new();
                self.reader.read_line(&mut h).unwrap();
                if h.trim().is_empty() {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; len];
            self.reader.read_exact(&mut body).unwrap();
            (status, String::from_utf8(body).unwrap())
        }
    }
}
