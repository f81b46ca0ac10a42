"""Machine-written English in the reader's language, for every layer that shows it (dashboard, reports, terminal)."""
