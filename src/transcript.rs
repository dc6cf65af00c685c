//! Reading Claude Code session transcripts (JSONL).
