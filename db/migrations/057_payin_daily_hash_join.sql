-- The roll-up's statement trigger (054) joins the statement's old and new rows by id. Transition tables
-- carry no statistics, so the planner takes them for small and joins them by nested loop: quadratic in the
-- rows one statement moves (a scanner transaction over 20 blocks moves 1,000 pay-ins: 440 ms in the
-- trigger alone). With nested loops off for the function's own statements the join is hashed (linear).
ALTER FUNCTION payin_daily_follow() SET enable_nestloop = off;
