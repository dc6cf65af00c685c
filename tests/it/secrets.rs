//! Secrets never reach oath's files: a corpus of secret formats is sent through the binary
//! in every field oath may record, then every file oath wrote (all of `OATH_HOME` and the
//! project's `.plan/`) is searched for them. Ordinary values next to them must survive.

use serde_json::{Value, json};

use crate::support::{TestEnv, assert_valid_answer, clip};

/// One secret: a label, the text carrying it, and the secret itself (searched for).
struct Secret {
    label: &'static str,
    text: String,
    secret: String,
}

fn s(label: &'static str, text: impl Into<String>, secret: impl Into<String>) -> Secret {
    Secret {
        label,
        text: text.into(),
        secret: secret.into(),
    }
}

const RSA_BODY: &str = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8Z3QwRjVh";
const EC_BODY: &str = "MHcCAQEEIBYuDkXQw9Zx8iQk1JfQp0VQ7ZyXkHcL0aBcDeFgHiJk";
const OPENSSH_BODY: &str = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB";
const PKCS8_BODY: &str = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7";

fn corpus() -> Vec<Secret> {
    let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    let basic = "YWxhZGRpbjpvcGVuc2VzYW1lMTIzNDU=";
    vec![
        s(
            "aws access key id",
            "aws s3 ls --region eu-west-1 # key AKIAZ3MEXAMPLEKEY7Q2",
            "AKIAZ3MEXAMPLEKEY7Q2",
        ),
        s(
            "aws secret key (env)",
            "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        s(
            "aws secret key (configure)",
            "aws configure set aws_secret_access_key 9dR4kLm2/PqZx7Vb1NcT3yWu8+EoHs5GjAiKf6Ql",
            "9dR4kLm2/PqZx7Vb1NcT3yWu8+EoHs5GjAiKf6Ql",
        ),
        s(
            "aws credentials file",
            "[default]\naws_access_key_id = AKIAQWERTYUIOPASDF12\naws_secret_access_key = Zx9Lk2Jh7Gf5Ds3Aq1Wm8Nb6Vc4Xe0Rt2Yu5Io7P\n",
            "Zx9Lk2Jh7Gf5Ds3Aq1Wm8Nb6Vc4Xe0Rt2Yu5Io7P",
        ),
        s(
            "gcp api key",
            "curl 'https://maps.googleapis.com/x?key=AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW'",
            "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
        ),
        s(
            "gcp oauth token",
            "gcloud x --access-token-file=/dev/null; echo ya29.a0AfH6SMBx3dQkZ7pLm9Vt2",
            "ya29.a0AfH6SMBx3dQkZ7pLm9Vt2",
        ),
        s(
            "gcp service account json",
            format!(
                "{{\"type\": \"service_account\", \"project_id\": \"demo\", \"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{PKCS8_BODY}\\n-----END PRIVATE KEY-----\\n\", \"client_email\": \"x@demo.iam.gserviceaccount.com\"}}"
            ),
            PKCS8_BODY,
        ),
        s(
            "azure storage connection string",
            "az storage blob list --connection-string 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net'",
            "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq",
        ),
        s(
            "azure client secret",
            "export AZURE_CLIENT_SECRET=Qx78Q~abcDEFghiJKLmnoPQRstuVWXyz012345",
            "Qx78Q~abcDEFghiJKLmnoPQRstuVWXyz012345",
        ),
        s(
            "azure sas",
            "curl 'https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA%3D%3D'",
            "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA",
        ),
        s(
            "github classic",
            "git clone https://ghp_R2d2C3poLuke4Leia5Han6Solo7Chewie8Yoda@github.com/o/r",
            "ghp_R2d2C3poLuke4Leia5Han6Solo7Chewie8Yoda",
        ),
        s(
            "github fine-grained",
            "GH_TOKEN=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF gh pr list",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF",
        ),
        s(
            "github oauth",
            "echo gho_16C7e42F292c6912E7710c838347Ae178B4a > tok",
            "gho_16C7e42F292c6912E7710c838347Ae178B4a",
        ),
        s(
            "gitlab",
            "curl --header \"PRIVATE-TOKEN: glpat-xYz12AbC34dEf56GhI78\" https://gitlab.com/api/v4/projects",
            "glpat-xYz12AbC34dEf56GhI78",
        ),
        s(
            "slack bot",
            "curl -H 'Authorization: Bearer xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx' https://slack.com/api",
            "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        ),
        s(
            "slack webhook",
            "curl -X POST -d '{\"text\":\"hi\"}' https://hooks.slack.com/services/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",
            "q8R9s0T1u2V3w4X5y6Z7a8B9",
        ),
        s(
            "openai project key",
            "OPENAI_API_KEY=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90 python app.py",
            "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90",
        ),
        s(
            "openai legacy key",
            "python -c \"import openai; openai.api_key='sk-T3BlbkFJa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6'\"",
            "sk-T3BlbkFJa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6",
        ),
        s(
            "anthropic",
            "curl https://api.anthropic.com/v1/messages -H \"x-api-key: sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-abcdefAA\"",
            "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-abcdefAA",
        ),
        s(
            "stripe",
            "stripe charges list --api-key sk_live_51H8xYzAbCdEfGhIjKlMnOpQr",
            "sk_live_51H8xYzAbCdEfGhIjKlMnOpQr",
        ),
        s(
            "jwt",
            format!("curl -H 'Authorization: Bearer {jwt}' https://api.example.com"),
            jwt,
        ),
        s(
            "basic auth header",
            format!("curl -H 'Authorization: Basic {basic}' https://x"),
            basic,
        ),
        s(
            "rsa private key",
            format!(
                "cat > id_rsa <<EOF\n-----BEGIN RSA PRIVATE KEY-----\n{RSA_BODY}\nAbCdEf==\n-----END RSA PRIVATE KEY-----\nEOF"
            ),
            RSA_BODY,
        ),
        s(
            "ec private key",
            format!("-----BEGIN EC PRIVATE KEY-----\n{EC_BODY}\n-----END EC PRIVATE KEY-----\n"),
            EC_BODY,
        ),
        s(
            "openssh private key",
            format!(
                "-----BEGIN OPENSSH PRIVATE KEY-----\n{OPENSSH_BODY}\n-----END OPENSSH PRIVATE KEY-----"
            ),
            OPENSSH_BODY,
        ),
        s(
            "PASSWORD= in a command",
            "PGPASSWORD=Tr0ub4dor-and-3 psql -h db -U app",
            "Tr0ub4dor-and-3",
        ),
        s(
            "--password flag",
            "mysql -u root --password Corr3ctHorseBattery -e 'select 1'",
            "Corr3ctHorseBattery",
        ),
        s(
            "--password= flag",
            "mysqldump --password=Sup3rS3cretDump db > x.sql",
            "Sup3rS3cretDump",
        ),
        s(
            "curl -u",
            "curl -u admin:Adm1nPassw0rdXyz https://jenkins.local/api",
            "Adm1nPassw0rdXyz",
        ),
        s(
            "basic auth url",
            "git remote add o https://deploy:S3cr3tPassw0rd42@git.example.com/r.git",
            "S3cr3tPassw0rd42",
        ),
        s(
            "db url",
            "DATABASE_URL=postgres://app:pgPa55w0rdQ9@db.internal:5432/app ./run",
            "pgPa55w0rdQ9",
        ),
        s(
            "json body",
            "curl -d '{\"username\":\"bob\",\"password\":\"J5onBodyPassw0rd\"}' https://x/login",
            "J5onBodyPassw0rd",
        ),
        s(
            "yaml",
            "db:\n  host: localhost\n  password: Yaml-Passw0rd-77\n",
            "Yaml-Passw0rd-77",
        ),
        s(
            "npm",
            "//registry.npmjs.org/:_authToken=npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
            "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        ),
        s(
            "coloured output",
            "\u{1b}[31merror\u{1b}[0m: bad credentials for \u{1b}[1mglpat-Col0urCodeTok3nXyz99\u{1b}[0m",
            "glpat-Col0urCodeTok3nXyz99",
        ),
        s(
            "escape-glued",
            "x\u{1b} glpat-Esc4peGlu3dTok3nAbc77",
            "glpat-Esc4peGlu3dTok3nAbc77",
        ),
        s(
            "huggingface",
            "HF=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567 python x.py",
            "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
        ),
    ]
}

/// A `.env` file with several secrets, written by the agent.
fn dotenv() -> (String, Vec<&'static str>) {
    let secrets = vec![
        "dotenvDbPassw0rd",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
        "base64SessionSecret0123456789abcdefXYZ",
        "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",
        "plainApiKeyValue123456",
    ];
    let text = format!(
        "# app settings\nNODE_ENV=production\nPORT=3000\nDB_PASSWORD={}\nSTRIPE_SECRET_KEY={}\nSESSION_SECRET=\"{}\"\nSENDGRID={}\nexport API_KEY='{}'\n",
        secrets[0], secrets[1], secrets[2], secrets[3], secrets[4]
    );
    (text, secrets)
}

/// Values that must stay readable in the audit (no over-redaction).
const ORDINARY: &[&str] = &[
    "3f786850e387550fdab836ed7e6dc881de23001b",
    "123e4567-e89b-12d3-a456-426614174000",
    "aGVsbG8gd29ybGQ=",
    "cargo test --workspace",
];

#[test]
fn secrets_are_redacted_in_every_file_oath_writes() {
    let env = TestEnv::new();
    let corpus = corpus();
    let (dotenv, dotenv_secrets) = dotenv();
    let mut payloads: Vec<Value> = Vec::new();
    for (i, sec) in corpus.iter().enumerate() {
        let id = format!("toolu_{i:03}");
        payloads.push(
            json!({"hook_event_name":"PreToolUse","session_id":"sec","tool_name":"Bash",
            "tool_use_id":id,"tool_input":{"command":sec.text,"description":"run it"}}),
        );
        payloads.push(json!({"hook_event_name":"PostToolUse","session_id":"sec","tool_name":"Bash",
            "tool_use_id":id,"tool_input":{"command":sec.text},
            "tool_response":{"stdout":sec.text,"stderr":"","nested":{"config":{"token":sec.secret,"items":[sec.text]}}}}));
        payloads.push(
            json!({"hook_event_name":"PostToolUseFailure","session_id":"sec","tool_name":"Bash",
            "tool_use_id":format!("{id}_f"),"tool_input":{"command":sec.text},
            "error":format!("Exit code 1\n{}", sec.text)}),
        );
        payloads.push(json!({"hook_event_name":"PreToolUse","session_id":"sec","tool_name":"Write",
            "tool_use_id":format!("{id}_w"),"tool_input":{"file_path":env.project().join("notes.txt"),
            "content":format!("{}\n{}", "filler line\n".repeat(i * 37), sec.text)}}));
        // The same text placed so the secret straddles the audit's 2048-byte cut.
        let offset = sec.text.find(&sec.secret).expect("secret in text");
        let filler = "y".repeat(2028_usize.saturating_sub(offset + 1));
        payloads.push(json!({"hook_event_name":"PreToolUse","session_id":"sec","tool_name":"Write",
            "tool_use_id":format!("{id}_cut"),"tool_input":{"file_path":env.project().join("cut.txt"),
            "content":format!("{filler}\n{}\n{}", sec.text, "z".repeat(3000))}}));
    }
    payloads.push(json!({"hook_event_name":"PreToolUse","session_id":"sec","tool_name":"Write",
        "tool_use_id":"toolu_env","tool_input":{"file_path":env.project().join(".env"),"content":dotenv}}));
    payloads.push(json!({"hook_event_name":"PostToolUse","session_id":"sec","tool_name":"Write",
        "tool_use_id":"toolu_env","tool_input":{"file_path":env.project().join(".env"),"content":dotenv},
        "tool_response":{"type":"create","filePath":env.project().join(".env"),"content":dotenv}}));
    payloads.push(
        json!({"hook_event_name":"PreToolUse","session_id":"sec","tool_name":"Bash",
        "tool_use_id":"toolu_plain","tool_input":{"command":format!(
            "git show {} && echo {} | base64 -d && echo {} && {}",
            ORDINARY[0], ORDINARY[2], ORDINARY[1], ORDINARY[3])}}),
    );
    for (n, p) in payloads.iter().enumerate() {
        let run = env.hook(p);
        let event = p["hook_event_name"].as_str();
        assert_valid_answer(&run, event, &format!("payload {n}"));
        assert!(
            !run.stderr.contains("internal error"),
            "{}",
            clip(&run.stderr)
        );
    }

    let files = env.written_files();
    assert!(!files.is_empty());
    let mut all = String::new();
    for (path, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        for sec in &corpus {
            // The whole secret, or any 16-byte piece of it (a secret cut in half).
            let pieces = sec.secret.len().saturating_sub(15).max(1);
            for start in 0..pieces {
                let piece = sec.secret.get(start..(start + 16).min(sec.secret.len()));
                let Some(piece) = piece else { continue };
                assert!(
                    !text.contains(piece),
                    "{}: {piece:?} of the secret leaked into {}",
                    sec.label,
                    path.display()
                );
            }
        }
        for secret in &dotenv_secrets {
            assert!(
                !text.contains(secret),
                ".env secret {secret} leaked into {}",
                path.display()
            );
        }
        all.push_str(&text);
    }
    // The audit was written and still holds the ordinary values.
    let audit = std::fs::read_to_string(env.audit_file("sec")).unwrap();
    assert_eq!(audit.lines().count(), payloads.len());
    for line in audit.lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
    for plain in ORDINARY {
        assert!(audit.contains(plain), "{plain} was redacted");
    }
    assert!(audit.contains("[REDACTED"), "nothing was redacted at all");
    assert!(
        all.contains("NODE_ENV=production"),
        "ordinary .env lines are kept"
    );
}
