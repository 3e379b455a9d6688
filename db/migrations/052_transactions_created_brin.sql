-- History search, a term shared by tens of thousands of old rows (issue 21): the search's probe finds the
-- newest sampled match, and the matches newer than it are read through the trigram index ANDed with this
-- range index on created_at, so only the heap pages of that recent span are visited (a bitmap of page
-- ranges, a few kilobytes for a million rows). The projection is written in time order (a row is made when
-- its source is created), which is what a BRIN index needs; rows moved by later updates only widen a
-- range, which stays correct and costs a few more pages.
CREATE INDEX transactions_created_brin ON transactions USING brin (created_at);
