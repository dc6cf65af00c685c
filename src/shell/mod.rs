//! Shell parsing: brush-parser's AST converted to oath's own command tree. Parser types
//! never leave this module.
