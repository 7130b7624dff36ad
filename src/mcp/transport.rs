//! The server's stdin, made tolerant of messages that arrive out of order (SPEC §7): before the
//! client's `initialize`, a notification (such as an early `notifications/initialized`) or a
//! line that is not JSON is dropped, and a request gets a "not initialized" error, instead of
//! ending the server. From `initialize` on, every byte is passed through untouched.

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// JSON-RPC's "server not initialized" code.
const NOT_INITIALIZED: i64 = -32002;

/// stdin as the server should read it.
pub fn stdin() -> DuplexStream {
    let (mut tx, rx) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let mut input = BufReader::new(tokio::io::stdin());
        let mut initialized = false;
        let mut line = Vec::new();
        loop {
            line.clear();
            match input.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if !initialized {
                match early(&line) {
                    Early::Initialize => initialized = true,
                    Early::Drop => continue,
                    Early::Refuse(id) => {
                        let reply = serde_json::json!({
                            "jsonrpc": "2.0",
                            "id": id,
                            "error": {"code": NOT_INITIALIZED, "message": "server not initialized: send initialize first"},
                        });
                        let mut out = tokio::io::stdout();
                        let _ = out.write_all(format!("{reply}\n").as_bytes()).await;
                        let _ = out.flush().await;
                        continue;
                    }
                }
            }
            if tx.write_all(&line).await.is_err() {
                break;
            }
        }
    });
    rx
}

/// What to do with a line that arrives before `initialize`.
#[derive(Debug, PartialEq)]
enum Early {
    Initialize,
    Drop,
    Refuse(serde_json::Value),
}

fn early(line: &[u8]) -> Early {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(line) else {
        return Early::Drop;
    };
    match (
        value.get("method").and_then(|m| m.as_str()),
        value.get("id"),
    ) {
        (Some("initialize"), Some(_)) => Early::Initialize,
        (Some(_), Some(id)) => Early::Refuse(id.clone()),
        _ => Early::Drop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_initialize_opens_the_session() {
        assert_eq!(
            early(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#),
            Early::Initialize
        );
        assert_eq!(
            early(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Early::Drop
        );
        assert_eq!(early(b"not json\n"), Early::Drop);
        assert_eq!(
            early(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#),
            Early::Refuse(serde_json::json!(7))
        );
    }
}
