-- The console's search finds a refund by its provider reference (issue 22): one indexed lookup, as for
-- every other kind of record the search reads.
CREATE INDEX refunds_by_provider_ref ON refunds (provider_ref) WHERE provider_ref IS NOT NULL;
