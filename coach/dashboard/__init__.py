"""The Streamlit dashboard (`streamlit run app.py`): analyse, review, compare, trends, rulebook, live.

Page files (`pages/*.py`) only lay out widgets; everything they show comes from the library: the store
(`coach.store`), the report data (`coach.report.data`), and the pure data shaping in `data.py`. Analyses run
in a worker thread (`jobs.py`) that hands progress and results to pages through a lock-protected job object.
"""
