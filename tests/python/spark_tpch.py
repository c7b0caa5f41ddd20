"""TPC-H for Spark: the 22 queries as Spark SQL text and as PySpark DataFrame programs, the
tables as temp views over Parquet, and a row comparison for their answers.

Used by bench/spark_tpch_bench.py (vanilla Spark against Spark with the Tandem plugin) and by
checks that the two forms of each query agree with each other and with DuckDB.

    register_tables(spark, data_dir)   temp views part, partsupp, ... over data_dir/<table>/
    sql_query(n)                       Spark SQL text of query n (1..22)
    dataframe_query(spark, n)          the same query written with the DataFrame API (reads the
                                       temp views through spark.table, so register first)
    rows_equal(a, b, ordered, limit)   compares two lists of Rows (or tuples)
    rows_difference(...)               the same comparison, returning None or what differs
    ORDER_BY[n], LIMIT.get(n)          the `ordered` and `limit` arguments for query n

Data: `tandem datagen tpch --sf SF --out DIR` (DIR/<table>/part-*.parquet; decimal(15,2)
money and quantities, date columns, int64 keys). Spark reads Parquet columns as nullable
whatever the files say, which matters for Q16 (NOT IN) below.

The DataFrame forms are what a user would write: joins between tables, groupBy/agg, semi and
anti joins for IN/EXISTS, correlated subqueries decorrelated by hand into an aggregate joined
on the correlation keys, uncorrelated scalar subqueries as a one-row aggregate cross-joined in.
They use no spark.sql and no F.expr. They keep the SQL's literal types: decimal constants are
Python Decimals (F.lit(Decimal("0.06")) is decimal(2,2), as the SQL literal 0.06 is; a float
literal would turn the comparison or the product into a double one), integer constants Python
ints, and date arithmetic goes through date_sub/add_months (what Spark rewrites `date -
interval '90' day` and `date + interval '3' month` to; both fold to a date constant). Output
column names and types are the SQL's (nullability too).

Their plans are not always the SQL's (checked with Spark 4.0.1 at SF1): the uncorrelated
scalar subqueries of Q11 and Q22 are a BroadcastNestedLoopJoin (Cross) here and a
ScalarSubquery in the SQL plan, Q15's max is a hash join on the decimal total_revenue here,
for Q18 and Q20 Spark pushes the SQL's IN semi joins further (an extra LeftSemi join on
lineitem), and the join orders of Q2 and Q17 differ. The SQL's correlated subqueries (Q2, Q17,
Q20) are decorrelated by Spark into the same aggregate-and-join shape as here.
"""
import datetime
import math
import os
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
QUERY_DIR = os.path.join(HERE, "..", "tpch", "queries")
TABLES = ["part", "partsupp", "supplier", "customer", "orders", "lineitem", "nation", "region"]

# Output columns each query's ORDER BY sorts on (None: a single-row aggregate, no ORDER BY), and
# its LIMIT (the same tables as tests/python/test_tpch_queries.py).
ORDER_BY = {
    1: ["l_returnflag", "l_linestatus"], 2: ["s_acctbal", "n_name", "s_name", "p_partkey"],
    3: ["revenue", "o_orderdate"], 4: ["o_orderpriority"], 5: ["revenue"], 6: None,
    7: ["supp_nation", "cust_nation", "l_year"], 8: ["o_year"], 9: ["nation", "o_year"],
    10: ["revenue"], 11: ["value"], 12: ["l_shipmode"], 13: ["custdist", "c_count"], 14: None,
    15: ["s_suppkey"], 16: ["supplier_cnt", "p_brand", "p_type", "p_size"], 17: None,
    18: ["o_totalprice", "o_orderdate"], 19: None, 20: ["s_name"], 21: ["numwait", "s_name"],
    22: ["cntrycode"],
}
LIMIT = {2: 100, 3: 10, 10: 20, 18: 100, 21: 100}


def register_tables(spark, data_dir):
    """Registers the 8 TPC-H tables as temp views over the Parquet folders data_dir/<table>/."""
    for t in TABLES:
        path = os.path.join(data_dir, t)
        if not os.path.isdir(path):
            raise FileNotFoundError(f"{path}: no such folder (tandem datagen tpch --out "
                                    f"{data_dir} writes one per table)")
        spark.read.parquet(path).createOrReplaceTempView(t)


# ----------------------------------------------------------------------------------------------
# Spark SQL

# Q15 as one statement: the spec creates the view revenue0, queries it and drops it; Spark is
# given the view's definition as a WITH clause with the same column list (the query itself is
# unchanged). Spark accepts `WITH name (col, ...) AS (...)`.
_Q15_SQL = """-- TPC-H Q15, Top Supplier (spec 2.4.15), validation parameters: DATE = 1996-01-01.
-- Adapted for Spark: the view revenue0 (create view / query / drop view in
-- tests/tpch/queries/q15.sql) is a WITH clause of the one statement.
with revenue0 (supplier_no, total_revenue) as (
	select
		l_suppkey,
		sum(l_extendedprice * (1 - l_discount))
	from
		lineitem
	where
		l_shipdate >= date '1996-01-01'
		and l_shipdate < date '1996-01-01' + interval '3' month
	group by
		l_suppkey
)
select
	s_suppkey,
	s_name,
	s_address,
	s_phone,
	total_revenue
from
	supplier,
	revenue0
where
	s_suppkey = supplier_no
	and total_revenue = (
		select
			max(total_revenue)
		from
			revenue0
	)
order by
	s_suppkey"""

# Adaptations of tests/tpch/queries/qNN.sql for Spark SQL. Only Q15 needs one (above). The other
# 21 files run as written: Spark parses `date 'X' - interval '90' day`, `+ interval '3' month`,
# `extract(year from d)`, `substring(s from 1 for 2)`, the derived-table column list
# `as c_orders (c_custkey, c_count)`, correlated scalar subqueries (Q2, Q17, Q20), EXISTS /
# NOT EXISTS with a non-equality correlation (Q21) and NOT IN (Q16). The only change made to
# them is dropping the final `;` (one statement per spark.sql call).
_ADAPTED = {15: _Q15_SQL}


def sql_query(n):
    """The Spark SQL text of TPC-H query n (1..22)."""
    if not 1 <= n <= 22:
        raise ValueError(f"TPC-H has queries 1..22, not {n}")
    if n in _ADAPTED:
        return _ADAPTED[n]
    with open(os.path.join(QUERY_DIR, f"q{n:02d}.sql")) as f:
        text = f.read().strip()
    if text.endswith(";"):
        text = text[:-1].rstrip()
    return text


# ----------------------------------------------------------------------------------------------
# DataFrame API

def _F():
    from pyspark.sql import functions
    return functions


def _date(s):
    return _F().lit(datetime.date.fromisoformat(s))


def _dec(s):
    """A decimal literal with the SQL literal's type: Decimal("0.06") is decimal(2,2)."""
    return _F().lit(Decimal(s))


def _tables(spark):
    return {t: spark.table(t) for t in TABLES}


def _disc_price():
    """l_extendedprice * (1 - l_discount)."""
    F = _F()
    return F.col("l_extendedprice") * (1 - F.col("l_discount"))


def q01(spark):
    F = _F()
    t = _tables(spark)
    return (t["lineitem"]
            .filter(F.col("l_shipdate") <= F.date_sub(_date("1998-12-01"), 90))
            .groupBy("l_returnflag", "l_linestatus")
            .agg(F.sum("l_quantity").alias("sum_qty"),
                 F.sum("l_extendedprice").alias("sum_base_price"),
                 F.sum(_disc_price()).alias("sum_disc_price"),
                 F.sum(_disc_price() * (1 + F.col("l_tax"))).alias("sum_charge"),
                 F.avg("l_quantity").alias("avg_qty"),
                 F.avg("l_extendedprice").alias("avg_price"),
                 F.avg("l_discount").alias("avg_disc"),
                 F.count("*").alias("count_order"))
            .orderBy("l_returnflag", "l_linestatus"))


def q02(spark):
    F = _F()
    t = _tables(spark)
    europe_supply = (t["region"].filter(F.col("r_name") == "EUROPE")
                     .join(t["nation"], F.col("r_regionkey") == F.col("n_regionkey"))
                     .join(t["supplier"], F.col("n_nationkey") == F.col("s_nationkey"))
                     .join(t["partsupp"], F.col("s_suppkey") == F.col("ps_suppkey")))
    # The correlated subquery: the lowest European supply cost of each part.
    min_cost = (europe_supply.groupBy(F.col("ps_partkey").alias("mc_partkey"))
                .agg(F.min("ps_supplycost").alias("min_supplycost")))
    return (t["part"].filter((F.col("p_size") == 15) & F.col("p_type").like("%BRASS"))
            .join(europe_supply, F.col("p_partkey") == F.col("ps_partkey"))
            .join(min_cost, (F.col("p_partkey") == F.col("mc_partkey"))
                  & (F.col("ps_supplycost") == F.col("min_supplycost")))
            .select("s_acctbal", "s_name", "n_name", "p_partkey", "p_mfgr", "s_address",
                    "s_phone", "s_comment")
            .orderBy(F.desc("s_acctbal"), "n_name", "s_name", "p_partkey")
            .limit(100))


def q03(spark):
    F = _F()
    t = _tables(spark)
    return (t["customer"].filter(F.col("c_mktsegment") == "BUILDING")
            .join(t["orders"].filter(F.col("o_orderdate") < _date("1995-03-15")),
                  F.col("c_custkey") == F.col("o_custkey"))
            .join(t["lineitem"].filter(F.col("l_shipdate") > _date("1995-03-15")),
                  F.col("l_orderkey") == F.col("o_orderkey"))
            .groupBy("l_orderkey", "o_orderdate", "o_shippriority")
            .agg(F.sum(_disc_price()).alias("revenue"))
            .select("l_orderkey", "revenue", "o_orderdate", "o_shippriority")
            .orderBy(F.desc("revenue"), "o_orderdate")
            .limit(10))


def q04(spark):
    F = _F()
    t = _tables(spark)
    start = _date("1993-07-01")
    late_lines = t["lineitem"].filter(F.col("l_commitdate") < F.col("l_receiptdate"))
    return (t["orders"]
            .filter((F.col("o_orderdate") >= start)
                    & (F.col("o_orderdate") < F.add_months(start, 3)))
            .join(late_lines, F.col("l_orderkey") == F.col("o_orderkey"), "left_semi")
            .groupBy("o_orderpriority")
            .agg(F.count("*").alias("order_count"))
            .orderBy("o_orderpriority"))


def q05(spark):
    F = _F()
    t = _tables(spark)
    start = _date("1994-01-01")
    asian_suppliers = (t["region"].filter(F.col("r_name") == "ASIA")
                       .join(t["nation"], F.col("n_regionkey") == F.col("r_regionkey"))
                       .join(t["supplier"], F.col("s_nationkey") == F.col("n_nationkey")))
    return (t["customer"]
            .join(t["orders"].filter((F.col("o_orderdate") >= start)
                                     & (F.col("o_orderdate") < F.add_months(start, 12))),
                  F.col("c_custkey") == F.col("o_custkey"))
            .join(t["lineitem"], F.col("l_orderkey") == F.col("o_orderkey"))
            .join(asian_suppliers, (F.col("l_suppkey") == F.col("s_suppkey"))
                  & (F.col("c_nationkey") == F.col("s_nationkey")))
            .groupBy("n_name")
            .agg(F.sum(_disc_price()).alias("revenue"))
            .orderBy(F.desc("revenue")))


def q06(spark):
    F = _F()
    t = _tables(spark)
    start = _date("1994-01-01")
    return (t["lineitem"]
            .filter((F.col("l_shipdate") >= start)
                    & (F.col("l_shipdate") < F.add_months(start, 12))
                    & F.col("l_discount").between(_dec("0.06") - _dec("0.01"),
                                                  _dec("0.06") + _dec("0.01"))
                    & (F.col("l_quantity") < 24))
            .agg(F.sum(F.col("l_extendedprice") * F.col("l_discount")).alias("revenue")))


def q07(spark):
    F = _F()
    t = _tables(spark)
    n1 = t["nation"].select(F.col("n_nationkey").alias("n1_nationkey"),
                            F.col("n_name").alias("supp_nation"))
    n2 = t["nation"].select(F.col("n_nationkey").alias("n2_nationkey"),
                            F.col("n_name").alias("cust_nation"))
    shipping = (t["supplier"]
                .join(t["lineitem"].filter(F.col("l_shipdate").between(
                    _date("1995-01-01"), _date("1996-12-31"))),
                    F.col("s_suppkey") == F.col("l_suppkey"))
                .join(t["orders"], F.col("o_orderkey") == F.col("l_orderkey"))
                .join(t["customer"], F.col("c_custkey") == F.col("o_custkey"))
                .join(n1, F.col("s_nationkey") == F.col("n1_nationkey"))
                .join(n2, F.col("c_nationkey") == F.col("n2_nationkey"))
                .filter(((F.col("supp_nation") == "FRANCE")
                         & (F.col("cust_nation") == "GERMANY"))
                        | ((F.col("supp_nation") == "GERMANY")
                           & (F.col("cust_nation") == "FRANCE")))
                .select("supp_nation", "cust_nation",
                        F.year("l_shipdate").alias("l_year"),
                        _disc_price().alias("volume")))
    return (shipping.groupBy("supp_nation", "cust_nation", "l_year")
            .agg(F.sum("volume").alias("revenue"))
            .orderBy("supp_nation", "cust_nation", "l_year"))


def q08(spark):
    F = _F()
    t = _tables(spark)
    n1 = t["nation"].select(F.col("n_nationkey").alias("n1_nationkey"),
                            F.col("n_regionkey").alias("n1_regionkey"))
    n2 = t["nation"].select(F.col("n_nationkey").alias("n2_nationkey"),
                            F.col("n_name").alias("nation"))
    all_nations = (t["part"].filter(F.col("p_type") == "ECONOMY ANODIZED STEEL")
                   .join(t["lineitem"], F.col("p_partkey") == F.col("l_partkey"))
                   .join(t["supplier"], F.col("s_suppkey") == F.col("l_suppkey"))
                   .join(t["orders"].filter(F.col("o_orderdate").between(
                       _date("1995-01-01"), _date("1996-12-31"))),
                       F.col("l_orderkey") == F.col("o_orderkey"))
                   .join(t["customer"], F.col("o_custkey") == F.col("c_custkey"))
                   .join(n1, F.col("c_nationkey") == F.col("n1_nationkey"))
                   .join(t["region"].filter(F.col("r_name") == "AMERICA"),
                         F.col("n1_regionkey") == F.col("r_regionkey"))
                   .join(n2, F.col("s_nationkey") == F.col("n2_nationkey"))
                   .select(F.year("o_orderdate").alias("o_year"),
                           _disc_price().alias("volume"), "nation"))
    return (all_nations.groupBy("o_year")
            .agg((F.sum(F.when(F.col("nation") == "BRAZIL", F.col("volume")).otherwise(0))
                  / F.sum("volume")).alias("mkt_share"))
            .orderBy("o_year"))


def q09(spark):
    F = _F()
    t = _tables(spark)
    profit = (t["part"].filter(F.col("p_name").like("%green%"))
              .join(t["lineitem"], F.col("p_partkey") == F.col("l_partkey"))
              .join(t["supplier"], F.col("s_suppkey") == F.col("l_suppkey"))
              .join(t["partsupp"], (F.col("ps_suppkey") == F.col("l_suppkey"))
                    & (F.col("ps_partkey") == F.col("l_partkey")))
              .join(t["orders"], F.col("o_orderkey") == F.col("l_orderkey"))
              .join(t["nation"], F.col("s_nationkey") == F.col("n_nationkey"))
              .select(F.col("n_name").alias("nation"),
                      F.year("o_orderdate").alias("o_year"),
                      (_disc_price() - F.col("ps_supplycost") * F.col("l_quantity"))
                      .alias("amount")))
    return (profit.groupBy("nation", "o_year")
            .agg(F.sum("amount").alias("sum_profit"))
            .orderBy("nation", F.desc("o_year")))


def q10(spark):
    F = _F()
    t = _tables(spark)
    start = _date("1993-10-01")
    return (t["customer"]
            .join(t["orders"].filter((F.col("o_orderdate") >= start)
                                     & (F.col("o_orderdate") < F.add_months(start, 3))),
                  F.col("c_custkey") == F.col("o_custkey"))
            .join(t["lineitem"].filter(F.col("l_returnflag") == "R"),
                  F.col("l_orderkey") == F.col("o_orderkey"))
            .join(t["nation"], F.col("c_nationkey") == F.col("n_nationkey"))
            .groupBy("c_custkey", "c_name", "c_acctbal", "c_phone", "n_name", "c_address",
                     "c_comment")
            .agg(F.sum(_disc_price()).alias("revenue"))
            .select("c_custkey", "c_name", "revenue", "c_acctbal", "n_name", "c_address",
                    "c_phone", "c_comment")
            .orderBy(F.desc("revenue"))
            .limit(20))


def q11(spark):
    F = _F()
    t = _tables(spark)
    german_stock = (t["partsupp"]
                    .join(t["supplier"], F.col("ps_suppkey") == F.col("s_suppkey"))
                    .join(t["nation"].filter(F.col("n_name") == "GERMANY"),
                          F.col("s_nationkey") == F.col("n_nationkey")))
    stock_value = F.col("ps_supplycost") * F.col("ps_availqty")
    # The uncorrelated scalar subquery: one row, cross-joined in.
    threshold = german_stock.agg((F.sum(stock_value) * _dec("0.0001")).alias("threshold"))
    return (german_stock.groupBy("ps_partkey")
            .agg(F.sum(stock_value).alias("value"))
            .crossJoin(threshold)
            .filter(F.col("value") > F.col("threshold"))
            .select("ps_partkey", "value")
            .orderBy(F.desc("value")))


def q12(spark):
    F = _F()
    t = _tables(spark)
    start = _date("1994-01-01")
    priority = F.col("o_orderpriority")
    return (t["orders"]
            .join(t["lineitem"]
                  .filter(F.col("l_shipmode").isin("MAIL", "SHIP")
                          & (F.col("l_commitdate") < F.col("l_receiptdate"))
                          & (F.col("l_shipdate") < F.col("l_commitdate"))
                          & (F.col("l_receiptdate") >= start)
                          & (F.col("l_receiptdate") < F.add_months(start, 12))),
                  F.col("o_orderkey") == F.col("l_orderkey"))
            .groupBy("l_shipmode")
            .agg(F.sum(F.when((priority == "1-URGENT") | (priority == "2-HIGH"), 1)
                       .otherwise(0)).alias("high_line_count"),
                 F.sum(F.when((priority != "1-URGENT") & (priority != "2-HIGH"), 1)
                       .otherwise(0)).alias("low_line_count"))
            .orderBy("l_shipmode"))


def q13(spark):
    F = _F()
    t = _tables(spark)
    c_orders = (t["customer"]
                .join(t["orders"], (F.col("c_custkey") == F.col("o_custkey"))
                      & ~F.col("o_comment").like("%special%requests%"), "left_outer")
                .groupBy("c_custkey")
                .agg(F.count("o_orderkey").alias("c_count")))
    return (c_orders.groupBy("c_count")
            .agg(F.count("*").alias("custdist"))
            .orderBy(F.desc("custdist"), F.desc("c_count")))


def q14(spark):
    F = _F()
    t = _tables(spark)
    start = _date("1995-09-01")
    return (t["lineitem"]
            .filter((F.col("l_shipdate") >= start)
                    & (F.col("l_shipdate") < F.add_months(start, 1)))
            .join(t["part"], F.col("l_partkey") == F.col("p_partkey"))
            .agg((_dec("100.00")
                  * F.sum(F.when(F.col("p_type").like("PROMO%"), _disc_price()).otherwise(0))
                  / F.sum(_disc_price())).alias("promo_revenue")))


def q15(spark):
    F = _F()
    t = _tables(spark)
    start = _date("1996-01-01")
    revenue0 = (t["lineitem"]
                .filter((F.col("l_shipdate") >= start)
                        & (F.col("l_shipdate") < F.add_months(start, 3)))
                .groupBy(F.col("l_suppkey").alias("supplier_no"))
                .agg(F.sum(_disc_price()).alias("total_revenue")))
    top = revenue0.agg(F.max("total_revenue").alias("max_revenue"))
    return (t["supplier"]
            .join(revenue0, F.col("s_suppkey") == F.col("supplier_no"))
            .join(top, F.col("total_revenue") == F.col("max_revenue"))
            .select("s_suppkey", "s_name", "s_address", "s_phone", "total_revenue")
            .orderBy("s_suppkey"))


def q16(spark):
    F = _F()
    t = _tables(spark)
    complaints = (t["supplier"].filter(F.col("s_comment").like("%Customer%Complaints%"))
                  .select("s_suppkey"))
    # NOT IN: an anti join that also drops a row whose comparison is NULL (a NULL ps_suppkey, or
    # any NULL s_suppkey). That is the join Spark makes of the SQL's NOT IN, and Spark plans
    # both as the same null-aware anti join (BroadcastHashJoin LeftAnti, isNullAwareAntiJoin).
    # how="left_anti" on the key alone would be NOT EXISTS: the same answer here, as neither
    # column holds NULLs, but Spark reads the columns as nullable and plans it differently.
    # (At SF0.1 no supplier comment matches, and AQE drops the anti join altogether.)
    in_complaints = F.col("ps_suppkey") == F.col("s_suppkey")
    return (t["partsupp"]
            .join(t["part"].filter((F.col("p_brand") != "Brand#45")
                                   & ~F.col("p_type").like("MEDIUM POLISHED%")
                                   & F.col("p_size").isin(49, 14, 23, 45, 19, 3, 36, 9)),
                  F.col("p_partkey") == F.col("ps_partkey"))
            .join(complaints, in_complaints | in_complaints.isNull(), "left_anti")
            .groupBy("p_brand", "p_type", "p_size")
            .agg(F.countDistinct("ps_suppkey").alias("supplier_cnt"))
            .orderBy(F.desc("supplier_cnt"), "p_brand", "p_type", "p_size"))


def q17(spark):
    F = _F()
    t = _tables(spark)
    # The correlated subquery: 0.2 * the average quantity of each part.
    small_quantity = (t["lineitem"].groupBy(F.col("l_partkey").alias("agg_partkey"))
                      .agg((_dec("0.2") * F.avg("l_quantity")).alias("avg_quantity")))
    return (t["part"].filter((F.col("p_brand") == "Brand#23")
                             & (F.col("p_container") == "MED BOX"))
            .join(t["lineitem"], F.col("p_partkey") == F.col("l_partkey"))
            .join(small_quantity, (F.col("agg_partkey") == F.col("p_partkey"))
                  & (F.col("l_quantity") < F.col("avg_quantity")))
            .agg((F.sum("l_extendedprice") / _dec("7.0")).alias("avg_yearly")))


def q18(spark):
    F = _F()
    t = _tables(spark)
    large_orders = (t["lineitem"].groupBy("l_orderkey")
                    .agg(F.sum("l_quantity").alias("sum_quantity"))
                    .filter(F.col("sum_quantity") > 300)
                    .select("l_orderkey"))
    return (t["customer"]
            .join(t["orders"], F.col("c_custkey") == F.col("o_custkey"))
            .join(large_orders, F.col("o_orderkey") == F.col("l_orderkey"), "left_semi")
            .join(t["lineitem"], F.col("o_orderkey") == F.col("l_orderkey"))
            .groupBy("c_name", "c_custkey", "o_orderkey", "o_orderdate", "o_totalprice")
            .agg(F.sum("l_quantity"))  # unnamed in the SQL too: "sum(l_quantity)"
            .orderBy(F.desc("o_totalprice"), "o_orderdate")
            .limit(100))


def q19(spark):
    F = _F()
    t = _tables(spark)
    qty, brand, container = F.col("l_quantity"), F.col("p_brand"), F.col("p_container")
    by_air_in_person = (F.col("l_shipmode").isin("AIR", "AIR REG")
                        & (F.col("l_shipinstruct") == "DELIVER IN PERSON"))
    return (t["lineitem"]
            .join(t["part"], F.col("p_partkey") == F.col("l_partkey"))
            .filter(((brand == "Brand#12")
                     & container.isin("SM CASE", "SM BOX", "SM PACK", "SM PKG")
                     & (qty >= 1) & (qty <= 1 + 10)
                     & F.col("p_size").between(1, 5)
                     & by_air_in_person)
                    | ((brand == "Brand#23")
                       & container.isin("MED BAG", "MED BOX", "MED PKG", "MED PACK")
                       & (qty >= 10) & (qty <= 10 + 10)
                       & F.col("p_size").between(1, 10)
                       & by_air_in_person)
                    | ((brand == "Brand#34")
                       & container.isin("LG CASE", "LG BOX", "LG PACK", "LG PKG")
                       & (qty >= 20) & (qty <= 20 + 10)
                       & F.col("p_size").between(1, 15)
                       & by_air_in_person))
            .agg(F.sum(_disc_price()).alias("revenue")))


def q20(spark):
    F = _F()
    t = _tables(spark)
    start = _date("1994-01-01")
    forest_parts = t["part"].filter(F.col("p_name").like("forest%")).select("p_partkey")
    # The correlated subquery: half the quantity shipped in 1994 of each (part, supplier).
    shipped = (t["lineitem"]
               .filter((F.col("l_shipdate") >= start)
                       & (F.col("l_shipdate") < F.add_months(start, 12)))
               .groupBy("l_partkey", "l_suppkey")
               .agg((_dec("0.5") * F.sum("l_quantity")).alias("half_quantity")))
    excess_suppliers = (t["partsupp"]
                        .join(forest_parts, F.col("ps_partkey") == F.col("p_partkey"),
                              "left_semi")
                        .join(shipped, (F.col("l_partkey") == F.col("ps_partkey"))
                              & (F.col("l_suppkey") == F.col("ps_suppkey")))
                        .filter(F.col("ps_availqty") > F.col("half_quantity"))
                        .select("ps_suppkey"))
    return (t["supplier"]
            .join(excess_suppliers, F.col("s_suppkey") == F.col("ps_suppkey"), "left_semi")
            .join(t["nation"].filter(F.col("n_name") == "CANADA"),
                  F.col("s_nationkey") == F.col("n_nationkey"))
            .select("s_name", "s_address")
            .orderBy("s_name"))


def q21(spark):
    F = _F()
    t = _tables(spark)
    l1 = t["lineitem"].alias("l1")
    l2 = t["lineitem"].alias("l2")
    l3 = t["lineitem"].alias("l3")
    same_order_other_supplier = {
        alias: (F.col(f"{alias}.l_orderkey") == F.col("l1.l_orderkey"))
        & (F.col(f"{alias}.l_suppkey") != F.col("l1.l_suppkey"))
        for alias in ("l2", "l3")}
    waiting = (l1.filter(F.col("l1.l_receiptdate") > F.col("l1.l_commitdate"))
               .join(l2, same_order_other_supplier["l2"], "left_semi")
               .join(l3.filter(F.col("l3.l_receiptdate") > F.col("l3.l_commitdate")),
                     same_order_other_supplier["l3"], "left_anti"))
    return (t["supplier"]
            .join(waiting, F.col("s_suppkey") == F.col("l1.l_suppkey"))
            .join(t["orders"].filter(F.col("o_orderstatus") == "F"),
                  F.col("o_orderkey") == F.col("l1.l_orderkey"))
            .join(t["nation"].filter(F.col("n_name") == "SAUDI ARABIA"),
                  F.col("s_nationkey") == F.col("n_nationkey"))
            .groupBy("s_name")
            .agg(F.count("*").alias("numwait"))
            .orderBy(F.desc("numwait"), "s_name")
            .limit(100))


def q22(spark):
    F = _F()
    t = _tables(spark)
    codes = ["13", "31", "23", "29", "30", "18", "17"]
    country = F.substring("c_phone", 1, 2)
    # The uncorrelated scalar subquery: one row, cross-joined in.
    average = (t["customer"]
               .filter((F.col("c_acctbal") > _dec("0.00")) & country.isin(codes))
               .agg(F.avg("c_acctbal").alias("avg_acctbal")))
    custsale = (t["customer"]
                .filter(country.isin(codes))
                .crossJoin(average)
                .filter(F.col("c_acctbal") > F.col("avg_acctbal"))
                .join(t["orders"], F.col("o_custkey") == F.col("c_custkey"), "left_anti")
                .select(country.alias("cntrycode"), "c_acctbal"))
    return (custsale.groupBy("cntrycode")
            .agg(F.count("*").alias("numcust"), F.sum("c_acctbal").alias("totacctbal"))
            .orderBy("cntrycode"))


_DATAFRAME_QUERIES = {n: globals()[f"q{n:02d}"] for n in range(1, 23)}


def dataframe_query(spark, n):
    """TPC-H query n (1..22) as a DataFrame over the temp views of register_tables."""
    if n not in _DATAFRAME_QUERIES:
        raise ValueError(f"TPC-H has queries 1..22, not {n}")
    return _DATAFRAME_QUERIES[n](spark)


# ----------------------------------------------------------------------------------------------
# Comparing answers

FLOAT_RTOL = 1e-9


def _is_float(v):
    return isinstance(v, float)


def _is_number(v):
    return isinstance(v, (int, Decimal, float)) and not isinstance(v, bool)


def _half_unit(d):
    """Half a unit of a Decimal's last digit (0.005 for Decimal('1.23'))."""
    exp = d.as_tuple().exponent
    return Decimal(5).scaleb(exp - 1) if isinstance(exp, int) else Decimal(0)


def values_equal(x, y):
    """Exact for ints, strings, dates, Decimals and booleans; floats to FLOAT_RTOL relative,
    NaN == NaN; a Decimal against a float (DuckDB's double averages and quotients) to half a
    unit of the Decimal's last digit, plus FLOAT_RTOL relative."""
    if x is None or y is None:
        return x is None and y is None
    if _is_float(x) and _is_float(y):
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        if math.isinf(x) or math.isinf(y):
            return x == y
        return abs(x - y) <= FLOAT_RTOL * max(abs(x), abs(y))
    if _is_float(x) or _is_float(y):
        f, other = (x, y) if _is_float(x) else (y, x)
        if not _is_number(other) or math.isnan(f) or math.isinf(f):
            return False
        exact = Decimal(other)
        tol = (_half_unit(exact) if isinstance(other, Decimal) else Decimal(0)) + \
            Decimal(FLOAT_RTOL) * abs(exact)
        return abs(Decimal(f) - exact) <= tol
    if isinstance(x, bool) or isinstance(y, bool):
        return type(x) is type(y) and x == y
    if _is_number(x) and _is_number(y):
        return x == y  # int and Decimal compare by value, exactly
    if type(x) is not type(y) and not (isinstance(x, str) and isinstance(y, str)):
        return False  # a date against a datetime, a string against a number, ...
    return x == y


def _row_values_equal(a, b):
    return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))


def _sort_key(row):
    key = []
    for v in row:
        if v is None:
            key.append((0, 0))
        elif isinstance(v, bool):
            key.append((1, int(v)))
        elif _is_number(v):
            f = float(v)
            key.append((2, math.inf if math.isnan(f) else f, math.isnan(f)))
        elif isinstance(v, str):
            key.append((3, v))
        elif isinstance(v, datetime.datetime):
            key.append((4, v.isoformat()))
        elif isinstance(v, datetime.date):
            key.append((5, v.toordinal()))
        else:
            key.append((6, repr(v)))
    return key


def _multiset_difference(a, b, what):
    if len(a) != len(b):
        return f"{what}: {len(a)} rows against {len(b)}"
    sa, sb = sorted(a, key=_sort_key), sorted(b, key=_sort_key)
    first = next((i for i, (x, y) in enumerate(zip(sa, sb)) if not _row_values_equal(x, y)),
                 None)
    if first is None:
        return None
    if len(a) <= 5000:  # sorting by approximate keys can misalign rows within tolerance
        unmatched = list(sb)
        for x in sa:
            j = next((j for j, y in enumerate(unmatched) if _row_values_equal(x, y)), None)
            if j is None:
                return f"{what}: row {tuple(x)!r} has no equal in the other answer"
            unmatched.pop(j)
        return None
    return f"{what}: sorted row {first}: {tuple(sa[first])!r} != {tuple(sb[first])!r}"


def _fields(rows):
    for r in rows:
        fields = getattr(r, "__fields__", None)
        if fields is not None:
            return list(fields)
    return None


def rows_difference(a, b, ordered, limit=None, columns=None):
    """None when the two lists of Rows (or tuples) are equal, else what differs.

    ordered: False/None: compare as multisets; a list of ORDER BY output columns (names, or
    indexes): rows must come in the same order of those keys, rows tied on the keys compare
    as multisets; True: order matters, all columns are the key.
    limit: the query's LIMIT: a tie group cut off by it compares by its keys only (either
    engine may keep any of the tied rows).
    columns: names for tuples without them (Rows carry their own). When both sides are Rows
    their column names must be equal too."""
    a, b = list(a), list(b)
    fa, fb = _fields(a), _fields(b)
    if fa is not None and fb is not None and fa != fb:
        return f"columns {fa} against {fb}"
    names = fa or fb or (list(columns) if columns else None)
    if len(a) != len(b):
        return f"{len(a)} rows against {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        if len(x) != len(y):
            return f"row {i}: {len(x)} columns against {len(y)}"
    if not a:
        return None
    if not ordered:
        return _multiset_difference(a, b, "as multisets")
    width = len(b[0])
    if ordered is True:
        keys = list(range(width))
    else:
        keys = []
        for k in ordered:
            if isinstance(k, int):
                keys.append(k)
            elif names is None:
                raise ValueError(f"ORDER BY column {k!r} named but the rows have no names")
            elif k in names:
                keys.append(names.index(k))
            else:
                lowered = [n.lower() for n in names]
                if k.lower() not in lowered:
                    raise ValueError(f"ORDER BY column {k!r} not among {names}")
                keys.append(lowered.index(k.lower()))
    start = 0
    while start < len(b):
        key = [b[start][c] for c in keys]
        end = start + 1
        while end < len(b) and _row_values_equal([b[end][c] for c in keys], key):
            end += 1
        for i in range(start, end):
            a_key = [a[i][c] for c in keys]
            if not _row_values_equal(a_key, key):
                return (f"row {i}: ORDER BY key {a_key!r} against {key!r} "
                        f"(rows {tuple(a[i])!r} and {tuple(b[i])!r})")
        cut = limit is not None and end == len(b) == limit
        if not cut:
            diff = _multiset_difference(a[start:end], b[start:end],
                                        f"rows {start}..{end - 1} (tied on the ORDER BY key)")
            if diff:
                return diff
        start = end
    return None


def rows_equal(a, b, ordered, limit=None, columns=None):
    """True when rows_difference finds nothing (see there)."""
    return rows_difference(a, b, ordered, limit, columns) is None
