"""A per-query value (a run's delta against a baseline, or a measure) against the queries' features:
on what kind of query a run wins. For each numeric feature, Spearman's rho with its p-value, a
least-squares trend with its confidence band, and the queries in buckets of equal width and of
equal frequency; for each categorical one, the value's mean per category."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

#: points of each trend's band
BAND_POINTS = 50


@dataclass(frozen=True)
class NumericFeature:
    """One numeric feature against the value: rank correlation, trend, buckets."""

    name: str
    queries: int
    rho: float
    p_value: float
    slope: float
    intercept: float
    band: pd.DataFrame  # x, fit, low, high
    by_width: pd.DataFrame  # bucket, low, high, queries, mean
    by_frequency: pd.DataFrame

    def to_dict(self) -> dict:
        return {
            "feature": self.name,
            "queries": self.queries,
            "spearman_rho": self.rho,
            "p_value": self.p_value,
            "slope": self.slope,
            "intercept": self.intercept,
            "band": self.band.to_dict(orient="records"),
            "equal_width": self.by_width.to_dict(orient="records"),
            "equal_frequency": self.by_frequency.to_dict(orient="records"),
        }


@dataclass(frozen=True)
class FeatureReport:
    """The value against every feature of the queries."""

    value: str  # what the value is: "nDCG@10 of dense - bm25"
    values: pd.Series  # qid -> value
    features: pd.DataFrame  # qid x feature
    numeric: tuple[NumericFeature, ...]
    categorical: dict[str, pd.DataFrame]  # feature -> category, queries, mean
    confidence_level: float
    left_out: tuple[str, ...] = ()  # features without two distinct values, and why

    def describe(self) -> str:
        return (
            f"{self.value} against each query's features: Spearman's rho (scipy), a least-squares "
            f"trend with its {self.confidence_level:.0%} band, buckets of equal width and of "
            "equal frequency"
        )

    def to_frames(self) -> dict[str, pd.DataFrame]:
        """``correlations`` (feature, queries, rho, p, slope), ``categories`` (feature,
        category, queries, mean)."""
        correlations = pd.DataFrame(
            [
                {
                    "feature": f.name,
                    "queries": f.queries,
                    "spearman_rho": f.rho,
                    "p_value": f.p_value,
                    "slope": f.slope,
                }
                for f in self.numeric
            ],
            columns=["feature", "queries", "spearman_rho", "p_value", "slope"],
        )
        categories = pd.concat(
            [frame.assign(feature=name) for name, frame in self.categorical.items()]
            or [pd.DataFrame(columns=["category", "queries", "mean", "feature"])],
            ignore_index=True,
        )[["feature", "category", "queries", "mean"]]
        return {"correlations": correlations, "categories": categories}

    def to_dict(self) -> dict:
        return {
            "value": self.value,
            "numeric": [f.to_dict() for f in self.numeric],
            "categorical": {
                name: frame.to_dict(orient="records") for name, frame in self.categorical.items()
            },
            "left_out": list(self.left_out),
        }


def feature_report(
    values: pd.Series,
    features: pd.DataFrame,
    *,
    value: str = "value",
    bins: int = 5,
    confidence_level: float = 0.95,
) -> FeatureReport:
    """``values`` (qid -> number) against each column of ``features`` (qid x feature; numeric
    columns as numbers, others as categories), on the queries both have."""
    values = values.dropna()
    numeric, categorical, left_out = [], {}, []
    for name in features.columns:
        column = features[name].reindex(values.index)
        held = column.notna()
        if pd.api.types.is_numeric_dtype(column):
            x, y = column[held].astype(float), values[held]
            if x.nunique() < 2 or len(x) < 3:
                left_out.append(f"{name}: fewer than two distinct values on three queries")
                continue
            numeric.append(_numeric(name, x, y, bins, confidence_level))
        else:
            grouped = values[held].groupby(column[held].astype(str), sort=True)
            categorical[name] = pd.DataFrame(
                {
                    "category": grouped.mean().index,
                    "queries": grouped.size().to_numpy(),
                    "mean": grouped.mean().to_numpy(),
                }
            )
    return FeatureReport(
        value, values, features, tuple(numeric), categorical, confidence_level, tuple(left_out)
    )


def _numeric(
    name: str, x: pd.Series, y: pd.Series, bins: int, confidence_level: float
) -> NumericFeature:
    rho = stats.spearmanr(x, y)
    fit = stats.linregress(x, y)
    n = len(x)
    grid = np.linspace(x.min(), x.max(), BAND_POINTS)
    residual = y - (fit.intercept + fit.slope * x)
    s = np.sqrt((residual**2).sum() / (n - 2))
    spread = np.sqrt(1 / n + (grid - x.mean()) ** 2 / ((x - x.mean()) ** 2).sum())
    half = stats.t.ppf(0.5 + confidence_level / 2, n - 2) * s * spread
    centre = fit.intercept + fit.slope * grid
    band = pd.DataFrame({"x": grid, "fit": centre, "low": centre - half, "high": centre + half})
    return NumericFeature(
        name,
        n,
        float(rho.statistic),
        float(rho.pvalue),
        float(fit.slope),
        float(fit.intercept),
        band,
        # never more buckets than queries: pandas would build every empty bucket of a billion
        _buckets(x, y, pd.cut(x, min(bins, n))),
        _buckets(x, y, pd.qcut(x, min(bins, n), duplicates="drop")),
    )


def _buckets(x: pd.Series, y: pd.Series, cut: pd.Series) -> pd.DataFrame:
    """Per bucket (in order): its feature range, how many queries, the value's mean. A bucket is
    named by the range of its queries' values (``0.25 – 0.5``), not pandas' interval, whose edge
    is moved by a thousandth of the range (``(-0.000833, 0.167]``)."""
    grouped = pd.DataFrame({"x": x, "y": y, "bucket": cut}).groupby("bucket", observed=True)
    low, high = grouped["x"].min().to_numpy(), grouped["x"].max().to_numpy()
    return pd.DataFrame(
        {
            "bucket": [f"{a:g}" if a == b else f"{a:g} – {b:g}" for a, b in zip(low, high)],
            "low": low,
            "high": high,
            "queries": grouped.size().to_numpy(),
            "mean": grouped["y"].mean().to_numpy(),
        }
    )
