-- Rate-limit and failed-authentication counters where every host meets: one row per bucket and window.
CREATE TABLE rate_counters (
  bucket text NOT NULL,
  window_no bigint NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (window_no, bucket)
);
