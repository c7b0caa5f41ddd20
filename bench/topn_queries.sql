-- ORDER BY ... LIMIT over whole TPC-H tables, for bench/ab_cpu.py --sql (one timed query each):
-- the TopN as a pipeline sink (exec/cpu/topn_sink.h) against its input collected whole.
SELECT l_orderkey, l_comment, l_extendedprice FROM lineitem
ORDER BY l_extendedprice DESC, l_orderkey, l_linenumber LIMIT 5;
-- Sorted on columns the SELECT list drops (plan/limit_below_project.h).
SELECT l_orderkey, l_partkey FROM lineitem WHERE l_shipmode = 'AIR'
ORDER BY l_receiptdate DESC, l_orderkey, l_linenumber LIMIT 100;
SELECT o_orderkey, o_totalprice, o_comment FROM orders ORDER BY o_totalprice DESC, o_orderkey LIMIT 10;
SELECT c_name, c_acctbal FROM customer ORDER BY c_acctbal, c_custkey LIMIT 20 OFFSET 1000;
