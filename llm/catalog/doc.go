// Package catalog knows which providers and models godwit can talk to: the
// built-in table (builtin.json: wire type, base URL, which environment
// variables hold the key and URL, each known model's context window,
// output limit and list price), and the merge of the user's overrides
// from the config file on top of it. It also parses "provider/model" references and
// prices an llm.Usage.
//
// A Catalog is immutable once built and safe for concurrent use.
//
// Prices are vendors' list prices in USD per million tokens as known when
// the table was written (late 2025); they drift, and long-context or batch
// tiers are not modelled. Treat them as estimates, and override them in the
// config when they matter.
//
// Of godwit's packages it imports only llm. The environment is passed in
// as a getenv function.
package catalog
