"""The codemod catalogue (harness/labs/repair): before → after for each API change, the
negative cases that must stay, idempotence, bad input, and the link to the catalogue.

Several snippets paraphrase the drifted code DS-1000's problems carry (their
reference_code / code_context) and our own problems' old idioms.
"""

from __future__ import annotations

import sys
import textwrap
import types
from pathlib import Path

import pytest

from harness.analysis.staleness import load_catalogue
from harness.core.errors import ProblemError
from harness.labs.repair import CODEMODS, DEFAULT, FOR_SOLUTIONS, Rewrite, apply, diff
from harness.labs.repair.codemods import portable_for
from harness.labs.repair.pandas_freq import new_frequency, portable_offset


def _d(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# (codemod, before, after); after == before: the codemod must leave it alone
CASES: list[tuple[str, str, str]] = [
    # -- numpy -------------------------------------------------------------------------
    (
        "numpy-nan-inf-aliases",
        'df["Date"] = df["Member"].map(lookup).fillna(np.NAN)  # DS-1000\n',
        'df["Date"] = df["Member"].map(lookup).fillna(np.nan)  # DS-1000\n',
    ),
    (
        "numpy-nan-inf-aliases",
        "import numpy\nx = [numpy.NaN, numpy.Inf, numpy.PINF, numpy.infty, numpy.Infinity]\n",
        "import numpy\nx = [numpy.nan, numpy.inf, numpy.inf, numpy.inf, numpy.inf]\n",
    ),
    (
        "numpy-nan-inf-aliases",
        "import numpy as np\nlow = np.NINF\nsquare = np.NINF ** 2\nneg = -np.NINF\n",
        "import numpy as np\nlow = -np.inf\nsquare = (-np.inf) ** 2\nneg = -(-np.inf)\n",
    ),
    (
        "numpy-nan-inf-aliases",
        "from numpy import NaN, array  # old\nx = array([1, NaN])\n",
        "from numpy import array, nan  # old\nx = array([1, nan])\n",
    ),
    (
        "numpy-nan-inf-aliases",  # a parameter called np is not numpy
        "import numpy as np\n\ndef f(np):\n    return np.NaN, np.NINF\n",
        "import numpy as np\n\ndef f(np):\n    return np.NaN, np.NINF\n",
    ),
    (
        "numpy-nan-inf-aliases",
        'label = "np.NaN is gone"  # np.NaN in a comment\n',
        'label = "np.NaN is gone"  # np.NaN in a comment\n',
    ),
    (
        "numpy-product-to-prod",
        "result = np.product(factors)  # our problem's old idiom\n",
        "result = np.prod(factors)  # our problem's old idiom\n",
    ),
    (
        "numpy-product-to-prod",
        "from numpy import product\n\nresult = product(x)\n",
        "from numpy import prod\n\nresult = prod(x)\n",
    ),
    (
        "numpy-product-to-prod",  # np in the snippet is its context's numpy: ruff uses it
        "import numpy as np\nfrom numpy import product\nresult = product(x) * np.cumproduct(y)[-1]\n",
        "import numpy as np\nresult = np.prod(x) * np.cumprod(y)[-1]\n",
    ),
    (
        "numpy-product-to-prod",  # the user's own product
        "def product(xs):\n    return 1\n\n\nresult = product([2, 3])\n",
        "def product(xs):\n    return 1\n\n\nresult = product([2, 3])\n",
    ),
    (
        "numpy-product-to-prod",
        "import itertools\npairs = list(itertools.product(a, b))\n",
        "import itertools\npairs = list(itertools.product(a, b))\n",
    ),
    (
        "numpy-alltrue-to-all",
        "ok = np.alltrue(a > 0) and np.sometrue(b)\n",
        "ok = np.all(a > 0) and np.any(b)\n",
    ),
    (
        "numpy-scalar-type-aliases",
        "x = np.float_(1.5)\ny = a.astype(np.complex_)\nz = np.string_(b'x')\n",
        "x = np.float64(1.5)\ny = a.astype(np.complex128)\nz = np.bytes_(b'x')\n",
    ),
    (
        "numpy-builtin-type-aliases",
        "result = readings.astype(np.float) / 4\nflag = np.bool(1)\n",
        "result = readings.astype(float) / 4\nflag = np.bool(1)\n",
    ),
    (
        "numpy-round-asfarray-msort",
        "a = np.round_(x, 2)\nb = np.asfarray(y)\nc = np.msort(z)\nd = np.asfarray(y, np.float32)\n",
        "a = np.round(x, 2)\nb = np.asarray(y, dtype=float)\nc = np.sort(z, axis=0)\nd = np.asfarray(y, np.float32)\n",
    ),
    (
        "numpy-round-asfarray-msort",
        "from numpy import asfarray\nb = asfarray(y)\n",
        "from numpy import asarray\nb = asarray(y, dtype=float)\n",
    ),
    (
        "numpy-in1d-to-isin",
        (
            "dims = np.maximum(B.max(0), A.max(0)) + 1\n"
            "keep = A[~np.in1d(np.ravel_multi_index(A.T, dims), np.ravel_multi_index(B.T, dims))]\n"
        ),
        (
            "dims = np.maximum(B.max(0), A.max(0)) + 1\n"
            "keep = A[~np.isin(np.ravel_multi_index(A.T, dims), np.ravel_multi_index(B.T, dims)).ravel()]\n"
        ),
    ),
    (
        "numpy-in1d-to-isin",
        "import numpy\nmask = numpy.in1d(ids, banned, invert=True)\n",
        "import numpy\nmask = numpy.isin(ids, banned, invert=True).ravel()\n",
    ),
    (
        "numpy-in1d-to-isin",
        "def in1d(a, b):\n    return a\n\n\nx = in1d(1, 2)\n",
        "def in1d(a, b):\n    return a\n\n\nx = in1d(1, 2)\n",
    ),
    ("numpy-trapz-to-trapezoid", "area = np.trapz(y, x)\n", "area = np.trapezoid(y, x)\n"),
    (
        "numpy-row-stack-to-vstack",
        "result = np.row_stack([a, b])\n",
        "result = np.vstack([a, b])\n",
    ),
    # -- pandas ------------------------------------------------------------------------
    (  # DS-1000 #47: a total row (a reduction renamed to a label) under a filtered frame
        "pandas-append-to-concat",
        "out = df[lambda x: x['v'] >= t].append(df[lambda x: x['v'] < t].sum().rename('X'))\n",
        (
            "out = pd.concat([df[lambda x: x['v'] >= t], df[lambda x: x['v'] < t].sum().rename('X')"
            ".to_frame().T.rename_axis(df[lambda x: x['v'] >= t].index.names)])\n"
        ),
    ),
    (  # a list's append of a renamed total, and a column's: not a frame's row
        "pandas-append-to-concat",
        "totals.append(df.sum().rename('X'))\nx = df['a'].append(t.sum().rename('X'))\n",
        "totals.append(df.sum().rename('X'))\nx = df['a'].append(t.sum().rename('X'))\n",
    ),
    (  # DS-1000 #151: a frame's reduction, indexed by its column labels
        "pandas-positional-getitem-to-iloc",
        "m = df[[a, b]].groupby(a).count().max()[0]\nlast = df.sum()[-1]\n",
        "m = df[[a, b]].groupby(a).count().max().iloc[0]\nlast = df.sum().iloc[-1]\n",
    ),
    (  # NumPy's reductions, a column's, by rows, and a label lookup stay
        "pandas-positional-getitem-to-iloc",
        "a = arr.max(axis=0)[0]\nb = df['x'].max()[0]\nc = df.max(axis=1)[0]\nd = s.value_counts()[0]\n",
        "a = arr.max(axis=0)[0]\nb = df['x'].max()[0]\nc = df.max(axis=1)[0]\nd = s.value_counts()[0]\n",
    ),
    (
        "pandas3-object-strings",
        "import numpy as np\nimport pandas as pd\ndf = pd.DataFrame({'a': ['x']})\n",
        (
            "import numpy as np\nimport pandas as pd\n"
            'if int(pd.__version__.split(".")[0]) >= 3:  # strings as object, as before pandas 3\n'
            '    pd.set_option("future.infer_string", False)\n'
            "df = pd.DataFrame({'a': ['x']})\n"
        ),
    ),
    (  # DS-1000 #810: passed as a function, and called
        "scipy-integrate-renames",
        "out = df.rolling('25s').apply(integrate.trapz)\nc = integrate.cumtrapz(y, x)\n",
        "out = df.rolling('25s').apply(integrate.trapezoid)\nc = integrate.cumulative_trapezoid(y, x)\n",
    ),
    (
        "scipy-integrate-renames",
        "from scipy.integrate import simps\nz = simps(y, x)\n",
        "from scipy.integrate import simpson as simps\nz = simps(y, x)\n",
    ),
    (
        "pandas-append-to-concat",
        "result = stock.append(arrivals, ignore_index=True)  # our problem's old idiom\n",
        "result = pd.concat([stock, arrivals], ignore_index=True)  # our problem's old idiom\n",
    ),
    (
        "pandas-append-to-concat",
        "df = df.append({'name': 'x', 'n': 1}, ignore_index=True)\n",
        "df = pd.concat([df, pd.DataFrame([{'name': 'x', 'n': 1}])], ignore_index=True)\n",
    ),
    (
        "pandas-append-to-concat",
        "df = df.append([{'a': 1}, {'a': 2}], ignore_index=True)\n",
        "df = pd.concat([df, pd.DataFrame([{'a': 1}, {'a': 2}])], ignore_index=True)\n",
    ),
    (
        "pandas-append-to-concat",
        "out = out.append([df2, df3], sort=False)\n",
        "out = pd.concat([out, df2, df3], sort=False)\n",
    ),
    (
        "pandas-append-to-concat",
        "import pandas\ntotal = first.append(pandas.DataFrame({'a': [1]}))\n",
        "import pandas\ntotal = pandas.concat([first, pandas.DataFrame({'a': [1]})])\n",
    ),
    (
        "pandas-append-to-concat",
        "df = df.append(pd.Series([1, 2], index=df.columns), ignore_index=True)\n",
        "df = pd.concat([df, pd.DataFrame([pd.Series([1, 2], index=df.columns)])], ignore_index=True)\n",
    ),
    (
        "pandas-append-to-concat",
        "s2 = s.append(pd.Series([5]), ignore_index=True)\n",
        "s2 = pd.concat([s, pd.Series([5])], ignore_index=True)\n",
    ),
    (
        "pandas-append-to-concat",
        "from pandas import DataFrame\nboth = left.append(right, ignore_index=True)\n",
        "from pandas import DataFrame\nimport pandas as pd\n\nboth = pd.concat([left, right], ignore_index=True)\n",
    ),
    (
        "pandas-append-to-concat",  # lists: DS-1000's tokens.append(...), frames collected
        (
            "tokens.append(token.string)\nrows.append([1, 2])\nframes.append(pd.DataFrame(x))\n"
            "result = df.append(other)\n"
        ),
        (
            "tokens.append(token.string)\nrows.append([1, 2])\nframes.append(pd.DataFrame(x))\n"
            "result = df.append(other)\n"
        ),
    ),
    (
        "pandas-applymap-to-map",
        _d("""
            df = (
                df.applymap(lambda s: s.lower() if type(s) == str else s)  # DS-1000
                .applymap(lambda x: x.replace(" ", "") if type(x) == str else x)
            )
            styled = df.style.applymap(color)
        """),
        _d("""
            df = (
                df.map(lambda s: s.lower() if type(s) == str else s)  # DS-1000
                .map(lambda x: x.replace(" ", "") if type(x) == str else x)
            )
            styled = df.style.map(color)
        """),
    ),
    (
        "pandas-applymap-to-map",
        "import toolz\ny = toolz.applymap(f, d)\n",
        "import toolz\ny = toolz.applymap(f, d)\n",
    ),
    (
        "pandas-delim-whitespace-to-sep",
        'df = pd.read_csv(data, delim_whitespace=True).set_index("rs")\n',
        'df = pd.read_csv(data, sep=r"\\s+").set_index("rs")\n',
    ),
    (
        "pandas-delim-whitespace-to-sep",
        _d("""
            result = pd.read_csv(
                io.StringIO(text),  # the table
                delim_whitespace=True,  # runs of blanks
            )
        """),
        _d("""
            result = pd.read_csv(
                io.StringIO(text),  # the table
                sep=r"\\s+",  # runs of blanks
            )
        """),
    ),
    (
        "pandas-delim-whitespace-to-sep",
        "from pandas import read_table\nt = read_table(p, delim_whitespace=False, header=None)\n",
        "from pandas import read_table\nt = read_table(p, header=None)\n",
    ),
    (
        "pandas-delim-whitespace-to-sep",
        "t = my.read_csv(p, delim_whitespace=True)\n",
        "t = my.read_csv(p, delim_whitespace=True)\n",
    ),
    (
        "pandas-fillna-method-to-ffill",
        'result = level.fillna(method="ffill")\n',
        "result = level.ffill()\n",
    ),
    (
        "pandas-fillna-method-to-ffill",
        (
            "df.fillna(method='backfill', axis=1, limit=2, inplace=True)\n"
            "g = df.groupby('k').fillna(value=None, method='pad')\n"
        ),
        "df.bfill(axis=1, limit=2, inplace=True)\ng = df.groupby('k').ffill()\n",
    ),
    (
        "pandas-fillna-method-to-ffill",
        "x = df.fillna(0)\ny = df.fillna(method=how)\n",
        "x = df.fillna(0)\ny = df.fillna(method=how)\n",
    ),
    (
        "pandas-replace-method",  # DS-1000 #82: a statement with inplace= becomes an assignment
        "df['A'].replace(to_replace=0, method='ffill', inplace=True)\n",
        "df['A'] = df['A'].groupby(df['A'].ne(0).cumsum()).transform(lambda g: g.iloc[0])\n",
    ),
    (
        "pandas-replace-method",  # DS-1000 #84
        "r = df['A'].replace(0, method='bfill', inplace=False)\n",
        "r = df['A'].groupby(df['A'].ne(0)[::-1].cumsum()[::-1]).transform(lambda g: g.iloc[-1])\n",
    ),
    (
        "pandas-replace-method",
        "x = s.replace([0, -1], method='pad')\n",
        "x = s.groupby((~s.isin([0, -1])).cumsum()).transform(lambda g: g.iloc[0])\n",
    ),
    (
        "pandas-replace-method",  # no method: nothing to do
        "x = s.replace(0, 1)\ny = s.replace('method', 'x')\n",
        "x = s.replace(0, 1)\ny = s.replace('method', 'x')\n",
    ),
    (
        "pandas-chained-assignment",  # DS-1000 #84
        "for i in range(len(df)):\n    df['A'].iloc[i] = max(l[i], r[i])\n",
        "for i in range(len(df)):\n    df.iloc[i, df.columns.get_loc('A')] = max(l[i], r[i])\n",
    ),
    (
        "pandas-chained-assignment",
        "df['A'].loc[3] += 1\nframe.x['b'].loc['k'] = 0\n",
        "df.loc[3, 'A'] += 1\nframe.x.loc['k', 'b'] = 0\n",
    ),
    (
        "pandas-chained-assignment",  # slices, lists, reads: left as they are
        "df['A'].iloc[1:3] = 0\ndf[['A', 'B']].loc[0] = 1\nx = df['A'].iloc[0]\ndf.iloc[0, 1] = 2\n",
        "df['A'].iloc[1:3] = 0\ndf[['A', 'B']].loc[0] = 1\nx = df['A'].iloc[0]\ndf.iloc[0, 1] = 2\n",
    ),
    (
        "pandas-to-datetime-per-value",  # DS-1000 #209
        "df['t'] = pd.to_datetime(df['t'].replace('0', np.nan))\n",
        "df['t'] = df['t'].replace('0', np.nan).map(pd.to_datetime)\n",
    ),
    (
        "pandas-to-datetime-per-value",  # arguments, or not pandas': left alone
        "a = pd.to_datetime(df['t'], format='%Y')\nb = to_datetime(x)\n",
        "a = pd.to_datetime(df['t'], format='%Y')\nb = to_datetime(x)\n",
    ),
    (
        "numpy-array-to-element-item",  # DS-1000 #931
        "m[i, j] = cosine_similarity([a[i, :]], [a[j, :]])\n",
        "m[i, j] = cosine_similarity([a[i, :]], [a[j, :]]).item()\n",
    ),
    (
        "numpy-array-to-element-item",  # a slice, a non-call, .item() already: left alone
        "m[i, :] = f(x)\nm[i] = y\nm[0] = f(x).item()\n",
        "m[i, :] = f(x)\nm[i] = y\nm[0] = f(x).item()\n",
    ),
    (
        "pandas-freq-aliases",
        "groups = df.groupby(pd.Grouper(level='Time', freq='2T'))['Value'].agg('mean')  # DS-1000\n",
        "groups = df.groupby(pd.Grouper(level='Time', freq='2min'))['Value'].agg('mean')  # DS-1000\n",
    ),
    (
        "pandas-freq-aliases",
        (
            'result = pd.date_range("2024-03-01", periods=4, freq="H")\n'
            "a = df.resample('5T').mean()\n"
            "b = s.resample(rule='M').sum()\n"
            "c = pd.bdate_range('2020', periods=3, freq='BM')\n"
            "d = pd.date_range('2020', '2021', None, 'Q-DEC')\n"
            "e = df.asfreq('30S')\n"
            "f = ts.dt.round('L')\n"
        ),
        (
            'result = pd.date_range("2024-03-01", periods=4, freq="h")\n'
            "a = df.resample('5min').mean()\n"
            "b = s.resample(rule='ME').sum()\n"
            "c = pd.bdate_range('2020', periods=3, freq='BME')\n"
            "d = pd.date_range('2020', '2021', None, 'QE-DEC')\n"
            "e = df.asfreq('30s')\n"
            "f = ts.dt.round('ms')\n"
        ),
    ),
    (
        "pandas-freq-aliases",  # periods keep M; strings that merely are "T" stay
        (
            "p = s.to_period('M')\nq = pd.period_range('2020', periods=3, freq='A')\n"
            "t = df['T']\nplt.title('T')\nw = df.resample('W-SUN').sum()\nx = df.rolling(3).sum()\n"
            "d = pd.date_range('2020', periods=3, freq='D')\n"
        ),
        (
            "p = s.to_period('M')\nq = pd.period_range('2020', periods=3, freq='A')\n"
            "t = df['T']\nplt.title('T')\nw = df.resample('W-SUN').sum()\nx = df.rolling(3).sum()\n"
            "d = pd.date_range('2020', periods=3, freq='D')\n"
        ),
    ),
    (
        "pandas-set-axis-inplace",
        "df.set_axis(['a', 'b'], axis=1, inplace=True)  # rename\n",
        "df = df.set_axis(['a', 'b'], axis=1)  # rename\n",
    ),
    (
        "pandas-set-axis-inplace",
        "return df.set_axis([*df.columns[:-1], 'Test'], axis=1, inplace=False)\n",
        "return df.set_axis([*df.columns[:-1], 'Test'], axis=1)\n",
    ),
    (
        "pandas-positional-to-keyword",
        _d("""
            df = (df.drop("var2", 1)  # DS-1000
                  .rename(columns=str.upper))
            parts = pd.DataFrame(df.row.str.split(' ', 1).tolist(), columns=['fips', 'row'])
            tail = s.str.rsplit('/', 1, True)
            result = long.pivot("date", "city", "temp")
            wide = pd.concat([a, b], 1)
            t = pd.read_csv('f.csv', ';')
            c = df.dropna(1)
            d = df.set_axis(labels, 'columns')
        """),
        _d("""
            df = (df.drop("var2", axis=1)  # DS-1000
                  .rename(columns=str.upper))
            parts = pd.DataFrame(df.row.str.split(' ', n=1).tolist(), columns=['fips', 'row'])
            tail = s.str.rsplit('/', n=1, expand=True)
            result = long.pivot(index="date", columns="city", values="temp")
            wide = pd.concat([a, b], axis=1)
            t = pd.read_csv('f.csv', sep=';')
            c = df.dropna(axis=1)
            d = df.set_axis(labels, axis='columns')
        """),
    ),
    (
        "pandas-positional-to-keyword",
        (
            "x = 'a,b'.split(',', 1)\ny = spark_df.drop('a', 'b')\nz = df.drop('a', axis=1)\n"
            "w = df.groupBy('k').pivot('c', ['x'])\nv = my.concat([a, b], 1)\n"
        ),
        (
            "x = 'a,b'.split(',', 1)\ny = spark_df.drop('a', 'b')\nz = df.drop('a', axis=1)\n"
            "w = df.groupBy('k').pivot('c', ['x'])\nv = my.concat([a, b], 1)\n"
        ),
    ),
    (
        "pandas-groupby-numeric-only",
        (
            "result = games.groupby('team').mean()\n"
            "thirds = df.groupby(df.index // 3).mean()  # DS-1000\n"
            "both = df.groupby('k')[['a', 'b']].sum(min_count=1)\n"
        ),
        (
            "result = games.groupby('team').mean(numeric_only=True)\n"
            "thirds = df.groupby(df.index // 3).mean(numeric_only=True)  # DS-1000\n"
            "both = df.groupby('k')[['a', 'b']].sum(min_count=1, numeric_only=True)\n"
        ),
    ),
    (
        "pandas-groupby-numeric-only",
        (
            "a = df.groupby('k')['v'].mean()\nb = df.groupby('k').mean(numeric_only=False)\n"
            "c = df.groupby('k').std()\nd = df.mean()\ne = df.groupby('k').agg('mean')\n"
        ),
        (
            "a = df.groupby('k')['v'].mean()\nb = df.groupby('k').mean(numeric_only=False)\n"
            "c = df.groupby('k').std()\nd = df.mean()\ne = df.groupby('k').agg('mean')\n"
        ),
    ),
    # -- scipy -------------------------------------------------------------------------
    (
        "scipy-sparse-dense-attributes",
        (
            "result = M.A.diagonal(0)  # DS-1000\n"
            "band = sparse.spdiags(matrix, (1, 0, -1), 5, 5).T.A\n"
            "h = sa.tocsr().H\n"
        ),
        (
            "result = M.toarray().diagonal(0)  # DS-1000\n"
            "band = sparse.spdiags(matrix, (1, 0, -1), 5, 5).T.toarray()\n"
            "h = sa.tocsr().conj().T\n"
        ),
    ),
    (
        "scipy-sparse-dense-attributes",
        "from scipy.sparse import random\nr = random(3, 3, density=0.5)\ndense = r.A\n",
        "from scipy.sparse import random\nr = random(3, 3, density=0.5)\ndense = r.toarray()\n",
    ),
    (
        "scipy-sparse-dense-attributes",  # DataFrame columns named A
        (
            "x = df[pd.to_numeric(df.A, errors='coerce').notnull()]\nif v in D.A.values:\n    pass\n"
            "m.A = 3\n"
        ),
        (
            "x = df[pd.to_numeric(df.A, errors='coerce').notnull()]\nif v in D.A.values:\n    pass\n"
            "m.A = 3\n"
        ),
    ),
    (
        "scipy-misc-to-datasets",
        "from scipy import misc\nfrom scipy import ndimage\n\ndata_orig = misc.face()\n",
        "from scipy import datasets\nfrom scipy import ndimage\n\ndata_orig = datasets.face()\n",
    ),
    (
        "scipy-misc-to-datasets",
        "from scipy import datasets, misc\na = misc.face()\nb = datasets.ascent()\n",
        "from scipy import datasets\na = datasets.face()\nb = datasets.ascent()\n",
    ),
    (
        "scipy-misc-to-datasets",
        "from scipy.misc import ascent as picture\nimg = picture()\n",
        "from scipy.datasets import ascent as picture\nimg = picture()\n",
    ),
    (
        "scipy-misc-to-datasets",
        "import scipy\nsignal = scipy.misc.electrocardiogram()\n",
        "import scipy\nsignal = scipy.datasets.electrocardiogram()\n",
    ),
    (
        "scipy-misc-to-datasets",  # a datasets of another library's is not taken
        "from sklearn import datasets\nfrom scipy import misc\nimg = misc.face()\n",
        "from sklearn import datasets\nfrom scipy import misc\nimg = misc.face()\n",
    ),
    (
        "scipy-quadrature-to-quad",
        "result = scipy.integrate.quadrature(lambda x: 2 * c * x, low, high)[0]  # DS-1000\n",
        "result = scipy.integrate.quad(lambda x: 2 * c * x, low, high)[0]  # DS-1000\n",
    ),
    (
        "scipy-quadrature-to-quad",
        "from scipy.integrate import quadrature\nresult, error = quadrature(f, 0.0, 1.0, tol=1e-10)\n",
        "from scipy.integrate import quad\nresult, error = quad(f, 0.0, 1.0, epsabs=1e-10)\n",
    ),
    (
        "scipy-quadrature-to-quad",
        "from scipy import integrate\nv = integrate.romberg(f, 0, 1, args=(2,))\n",
        "from scipy import integrate\nv = integrate.quad(f, 0, 1, args=(2,))[0]\n",
    ),
    # -- scikit-learn, matplotlib, tensorflow -----------------------------------------------
    (
        "sklearn-get-feature-names-out",
        "names = np.asarray(vectorizer.get_feature_names())[selector.get_support()]\n",
        "names = np.asarray(vectorizer.get_feature_names_out())[selector.get_support()]\n",
    ),
    (
        "sklearn-get-feature-names-out",
        "import mylib\nnames = mylib.get_feature_names()\n",
        "import mylib\nnames = mylib.get_feature_names()\n",
    ),
    (
        "matplotlib-get-cmap-to-colormaps",
        "import matplotlib as mpl\nfrom matplotlib import cm\na = cm.get_cmap('viridis')\nb = mpl.cm.get_cmap('jet', 8)\n",
        "import matplotlib as mpl\nfrom matplotlib import cm\na = mpl.colormaps['viridis']\nb = mpl.colormaps['jet'].resampled(8)\n",
    ),
    (
        "matplotlib-get-cmap-to-colormaps",
        "import matplotlib.pyplot as plt\na = plt.cm.get_cmap('jet')\nb = matplotlib.cm.get_cmap(name)\n",
        "import matplotlib.pyplot as plt\na = plt.get_cmap('jet')\nb = plt.get_cmap(name)\n",
    ),
    (
        "matplotlib-get-cmap-to-colormaps",
        "import matplotlib.cm as cm\nc = cm.get_cmap(cmap)\n",
        "import matplotlib.cm as cm\nimport matplotlib\n\nc = matplotlib.colormaps.get_cmap(cmap)\n",
    ),
    (
        "matplotlib-get-cmap-to-colormaps",  # DS-1000's check reads a mappable's get_cmap
        'assert ax.collections[0].get_cmap().name == "Spectral"\n',
        'assert ax.collections[0].get_cmap().name == "Spectral"\n',
    ),
    (
        "tensorflow-optimizer-lr-keyword",
        "opt = tf.keras.optimizers.SGD(lr=0.5)\nadam = keras.optimizers.Adam(lr=1e-3)\n",
        "opt = tf.keras.optimizers.SGD(learning_rate=0.5)\nadam = keras.optimizers.Adam(lr=1e-3)\n",
    ),
    (
        "tensorflow-optimizer-lr-keyword",
        (
            "from tensorflow.keras.optimizers import Adam\nfrom keras.optimizers import RMSprop\n"
            "a = Adam(lr=1e-3)\nb = RMSprop(lr=0.01, rho=0.9)\nt = torch.optim.SGD(params, lr=0.1)\n"
        ),
        (
            "from tensorflow.keras.optimizers import Adam\nfrom keras.optimizers import RMSprop\n"
            "a = Adam(learning_rate=1e-3)\nb = RMSprop(learning_rate=0.01, rho=0.9)\nt = torch.optim.SGD(params, lr=0.1)\n"
        ),
    ),
    (
        "tensorflow-optimizer-lr-attribute",
        "tf.keras.backend.set_value(opt.lr, 0.01)\nprint(model.optimizer.lr)\n",
        "opt.learning_rate.assign(0.01)\nprint(model.optimizer.learning_rate)\n",
    ),
    (
        "tensorflow-optimizer-lr-attribute",  # no TensorFlow here
        "for group in optimizer.param_groups:\n    group['lr'] = 0.1\nrate = opt.lr\n",
        "for group in optimizer.param_groups:\n    group['lr'] = 0.1\nrate = opt.lr\n",
    ),
    (  # our problem's old idiom: Keras 3's backend sets no variable
        "tensorflow-optimizer-lr-attribute",
        "tf.keras.backend.set_value(opt.lr, 0.01)\nK.set_value(model.optimizer.lr, x)\n",
        "opt.learning_rate.assign(0.01)\nmodel.optimizer.learning_rate.assign(x)\n",
    ),
    (  # set_value of anything else stays
        "tensorflow-optimizer-lr-attribute",
        "tf.keras.backend.set_value(w, 1)\ntf.keras.backend.set_value(opt.learning_rate, 2)\n",
        "tf.keras.backend.set_value(w, 1)\ntf.keras.backend.set_value(opt.learning_rate, 2)\n",
    ),
    (
        "tensorflow-keras-moved-names",
        (
            "norm = tf.keras.layers.experimental.preprocessing.Normalization(axis=-1)\n"
            "schedule = tf.keras.experimental.CosineDecay(initial_learning_rate=0.1, decay_steps=10)\n"
        ),
        (
            "norm = tf.keras.layers.Normalization(axis=-1)\n"
            "schedule = tf.keras.optimizers.schedules.CosineDecay(initial_learning_rate=0.1, decay_steps=10)\n"
        ),
    ),
    (
        "tensorflow-keras-moved-names",
        "from tensorflow.keras.layers.experimental.preprocessing import Normalization, Rescaling\n",
        "from tensorflow.keras.layers import Normalization, Rescaling\n",
    ),
    (
        "tensorflow-keras-moved-names",
        "from tensorflow import keras\nn = keras.layers.experimental.preprocessing.Normalization()\n",
        "from tensorflow import keras\nn = keras.layers.Normalization()\n",
    ),
    (
        "tensorflow-fit-generator",
        (
            "model.fit_generator(batches(), steps_per_epoch=3, epochs=2, verbose=0)\n"
            "model.fit_generator(gen, 10, 2)\nloss = model.evaluate_generator(gen, 3)\n"
            "p = model.predict_generator(generator=gen, verbose=1)\n"
        ),
        (
            "model.fit(batches(), steps_per_epoch=3, epochs=2, verbose=0)\n"
            "model.fit(gen, steps_per_epoch=10, epochs=2)\nloss = model.evaluate(gen, steps=3, verbose=0)\n"
            "p = model.predict(x=gen, verbose=1)\n"
        ),
    ),
]


# the codemods BigCodeBench's drifted tasks need (its tests and its signatures)
CASES += [
    (
        "unittest-removed-aliases",
        (
            "class T(unittest.TestCase):\n    def test(self):\n"
            "        self.assertEquals(f(), {})\n"
            "        self.assertAlmostEquals(x, 0.5, places=2)\n"
            "        self.assertRegexpMatches(s, 'a+')\n"
        ),
        (
            "class T(unittest.TestCase):\n    def test(self):\n"
            "        self.assertEqual(f(), {})\n"
            "        self.assertAlmostEqual(x, 0.5, places=2)\n"
            "        self.assertRegex(s, 'a+')\n"
        ),
    ),
    (
        "unittest-removed-aliases",  # BigCodeBench/352: no method of its own in 3.12
        (
            "self.assertDictContainsSubset(top_k_dict, {'the': 3, 'be': 1})\n"
            "self.assertDictContainsSubset(sub, d, 'why')\n"
        ),
        (
            "self.assertEqual({'the': 3, 'be': 1}, {**{'the': 3, 'be': 1}, **top_k_dict})\n"
            "self.assertEqual(d, {**d, **sub}, 'why')\n"
        ),
    ),
    (
        "unittest-removed-aliases",  # a class of the source's own that defines the name
        "class Checks:\n    def assertEquals(self, a, b):\n        pass\n\nChecks().assertEquals(1, 2)\n",
        "class Checks:\n    def assertEquals(self, a, b):\n        pass\n\nChecks().assertEquals(1, 2)\n",
    ),
    (
        "unittest-removed-aliases",  # a plain function of that name is not TestCase's
        "def assertEquals(a, b):\n    return a == b\n\nassertEquals(1, 1)\n",
        "def assertEquals(a, b):\n    return a == b\n\nassertEquals(1, 1)\n",
    ),
    (
        "pandas-freq-aliases",  # BigCodeBench/943: the default, the comparison, the callers
        _d("""
        import pandas as pd
        def task_func(start_date='2016-01-01', periods=24, freq='M'):
            index = pd.date_range(start=start_date, periods=periods, freq=freq)
            return 12 if freq == 'M' else 4
        result = task_func('2020-01-01', 24, 'M')
        other = task_func(freq='M')
        """),
        _d("""
        import pandas as pd
        def task_func(start_date='2016-01-01', periods=24, freq='ME'):
            index = pd.date_range(start=start_date, periods=periods, freq=freq)
            return 12 if freq == 'ME' else 4
        result = task_func('2020-01-01', 24, 'ME')
        other = task_func(freq='ME')
        """),
    ),
    (
        "pandas-freq-aliases",  # a parameter handed to a period's frequency: 'M' stays
        "def f(s, freq='M', unit='H'):\n    return s.to_period(freq), s.round(unit)\n\nf(x, 'M', 'H')\n",
        "def f(s, freq='M', unit='h'):\n    return s.to_period(freq), s.round(unit)\n\nf(x, 'M', 'h')\n",
    ),
    (
        "pandas-freq-aliases",  # a parameter never given to pandas as a frequency
        "def f(freq='M'):\n    return {'M': 1}[freq]\n\nf('M')\n",
        "def f(freq='M'):\n    return {'M': 1}[freq]\n\nf('M')\n",
    ),
    (
        "numpy-nonzero-0d",
        "significant = np.where(p_value < ALPHA)[0]\nidx = np.nonzero(mask)\n",
        (
            "significant = np.where(np.atleast_1d(p_value < ALPHA))[0]\n"
            "idx = np.nonzero(np.atleast_1d(mask))\n"
        ),
    ),
    (
        "numpy-nonzero-0d",  # where with three arguments calls no nonzero
        "out = np.where(mask, a, b)\nnp.where(np.atleast_1d(c))\n",
        "out = np.where(mask, a, b)\nnp.where(np.atleast_1d(c))\n",
    ),
    (
        "scipy-mode-scalar",  # BigCodeBench/115, 245, 736
        "from scipy.stats import mode\nimport numpy as np\nv = mode(a).mode[0]\n",
        "from scipy.stats import mode\nimport numpy as np\nv = np.atleast_1d(mode(a).mode)[0]\n",
    ),
    (
        "scipy-mode-scalar",  # numpy imported where the program imports none
        "from scipy import stats\nm = stats.mode(x)[0][0]\n",
        "from scipy import stats\nimport numpy as np\n\nm = np.atleast_1d(stats.mode(x)[0])[0]\n",
    ),
    (
        "scipy-mode-scalar",  # the whole result, or a mode of the user's own
        "from scipy import stats\nr = stats.mode(x)[0]\n\ndef mode(x):\n    return [x]\n\nv = mode(1)[0][0]\n",
        "from scipy import stats\nr = stats.mode(x)[0]\n\ndef mode(x):\n    return [x]\n\nv = mode(1)[0][0]\n",
    ),
    (
        "sklearn-onehot-sparse-output",  # BigCodeBench/686
        "from sklearn.preprocessing import OneHotEncoder\ne = OneHotEncoder(sparse=False)\n",
        "from sklearn.preprocessing import OneHotEncoder\ne = OneHotEncoder(sparse_output=False)\n",
    ),
    (
        "sklearn-onehot-sparse-output",  # another callee's sparse=
        "import scipy\nm = csr_matrix(x, sparse=True)\nOneHotEncoder(sparse=False, sparse_output=True)\n",
        "import scipy\nm = csr_matrix(x, sparse=True)\nOneHotEncoder(sparse=False, sparse_output=True)\n",
    ),
    (
        "matplotlib-boxplot-tick-labels",  # BigCodeBench/1026
        "ax.boxplot([a, b], labels=['A', 'B'])\n",
        "ax.boxplot([a, b], tick_labels=['A', 'B'])\n",
    ),
    (
        "matplotlib-boxplot-tick-labels",
        "ax.bar(x, h, label='A')\nax.pie(s, labels=['A'])\n",
        "ax.bar(x, h, label='A')\nax.pie(s, labels=['A'])\n",
    ),
    (
        "pandas-read-json-literal",  # BigCodeBench/501
        "import pandas as pd\ndata = pd.read_json(json_str)\nother = pd.read_csv(json_str)\n",
        "import pandas as pd\nimport io\n\ndata = pd.read_json(io.StringIO(json_str))\nother = pd.read_csv(json_str)\n",
    ),
    (
        "pandas-read-json-literal",  # a StringIO already, or a read_json of one's own
        "import io\nimport pandas as pd\nd = pd.read_json(io.StringIO(t))\n\ndef read_json(x):\n    return x\n\nread_json('a')\n",
        "import io\nimport pandas as pd\nd = pd.read_json(io.StringIO(t))\n\ndef read_json(x):\n    return x\n\nread_json('a')\n",
    ),
]


# (codemod, before, after) in the portable form: code that must run before the new API
# too (BigCodeBench's pinned pandas 2.0.3 and Matplotlib 3.7.0); after == before: left alone
PORTABLE: list[tuple[str, str, str]] = [
    (
        "pandas-applymap-to-map",  # BigCodeBench/35, 36, 653, 746, 918
        "df = df.applymap(lambda x: x if x in target_values else 0)\n",
        "df = df.apply(lambda col: col.map(lambda x: x if x in target_values else 0))\n",
    ),
    (
        "pandas-applymap-to-map",  # BigCodeBench/602's test; na_action goes to Series.map
        'low = df.applymap(str.islower).all().all()\nm = df.applymap(f, na_action="ignore")\n',
        'low = df.apply(lambda col: col.map(str.islower)).all().all()\nm = df.apply(lambda col: col.map(f, na_action="ignore"))\n',
    ),
    (
        "pandas-applymap-to-map",  # BigCodeBench/797: the layout of the call is kept
        "def f(df):\n    return df.applymap(\n        lambda x: len(str(x))\n        ).sum().sum()\n",
        "def f(df):\n    return df.apply(\n        lambda col: col.map(lambda x: len(str(x)))\n        ).sum().sum()\n",
    ),
    (
        "pandas-applymap-to-map",  # the lambda's name hides nothing f uses; a Styler's subset
        "y = df.applymap(lambda v: v + col)\ns = df.style.applymap(color, subset=['a'])\n",
        "y = df.apply(lambda column: column.map(lambda v: v + col))\ns = df.style.apply(lambda col: col.map(color), subset=['a'])\n",
    ),
    (
        "pandas-applymap-to-map",
        "import toolz\ny = toolz.applymap(f, d)\nz = [1].applymap(f)\n",
        "import toolz\ny = toolz.applymap(f, d)\nz = [1].applymap(f)\n",
    ),
    (
        "pandas-freq-aliases",  # BigCodeBench/943: the default, the comparison, the callers
        _d("""
        import pandas as pd
        def task_func(start_date='2016-01-01', periods=24, freq='M'):
            index = pd.date_range(start=start_date, periods=periods, freq=freq)
            return 12 if freq == 'M' else 4
        result = task_func('2020-01-01', 24, 'M')
        other = task_func(freq='Q')
        """),
        _d("""
        import pandas as pd
        def task_func(start_date='2016-01-01', periods=24, freq=pd.offsets.MonthEnd()):
            index = pd.date_range(start=start_date, periods=periods, freq=freq)
            return 12 if freq == pd.offsets.MonthEnd() else 4
        result = task_func('2020-01-01', 24, pd.offsets.MonthEnd())
        other = task_func(freq=pd.offsets.QuarterEnd(startingMonth=12))
        """),
    ),
    (
        "pandas-freq-aliases",  # multiples and anchors; the unit aliases stay strings
        _d("""
        a = s.resample('2M').sum()
        b = pd.date_range('2020', periods=3, freq='A-JUN')
        c = pd.date_range('2020', periods=3, freq='BQ')
        d = pd.date_range('2020', periods=3, freq='H')
        e = pd.date_range('2020', periods=3, freq='AS')
        """),
        _d("""
        a = s.resample(pd.offsets.MonthEnd(2)).sum()
        b = pd.date_range('2020', periods=3, freq=pd.offsets.YearEnd(month=6))
        c = pd.date_range('2020', periods=3, freq=pd.offsets.BQuarterEnd(startingMonth=12))
        d = pd.date_range('2020', periods=3, freq='h')
        e = pd.date_range('2020', periods=3, freq='YS')
        """),
    ),
    (
        "pandas-freq-aliases",  # periods keep 'M'; a string that is no frequency stays
        "p = s.to_period('M')\nq = df['M']\nw = pd.date_range('2020', periods=3, freq='W')\n",
        "p = s.to_period('M')\nq = df['M']\nw = pd.date_range('2020', periods=3, freq='W')\n",
    ),
    (
        "matplotlib-boxplot-tick-labels",  # BigCodeBench/1026
        "ax.boxplot([a, b], labels=['A', 'B'])\nax.grid(True)\n",
        "ax.boxplot([a, b])\nax.set_xticklabels(['A', 'B'])\nax.grid(True)\n",
    ),
    (
        "matplotlib-boxplot-tick-labels",  # horizontal, assigned, pyplot's current axes
        "import matplotlib.pyplot as plt\nbp = ax.boxplot(d, vert=False, labels=names)\nplt.boxplot(d, labels=names)\n",
        "import matplotlib.pyplot as plt\nbp = ax.boxplot(d, vert=False)\nax.set_yticklabels(names)\nplt.boxplot(d)\nplt.gca().set_xticklabels(names)\n",
    ),
    (
        "matplotlib-boxplot-tick-labels",
        "ax.bar(x, h, label='A')\nax.pie(s, labels=['A'])\nax.boxplot(d)\n",
        "ax.bar(x, h, label='A')\nax.pie(s, labels=['A'])\nax.boxplot(d)\n",
    ),
]

# (codemod, source, the new API's form): no portable form there, the new API and a note
PORTABLE_FALLBACK = [
    ("pandas-applymap-to-map", "y = df.applymap(f, n=1)\n", "y = df.map(f, n=1)\n"),
    (
        "matplotlib-boxplot-tick-labels",
        "return ax.boxplot(d, labels=n)\n",
        "return ax.boxplot(d, tick_labels=n)\n",
    ),
    (
        "matplotlib-boxplot-tick-labels",
        "ax.boxplot(d, labels=n, manage_ticks=False)\n",
        "ax.boxplot(d, tick_labels=n, manage_ticks=False)\n",
    ),
]


@pytest.mark.parametrize(("name", "before", "after"), PORTABLE)
def test_portable_form(name: str, before: str, after: str) -> None:
    rewrite = apply(before, [name], portable={name})
    assert rewrite.source == after
    assert rewrite.applied == ((name,) if after != before else ())
    assert rewrite.skipped == ()
    assert apply(after, [name], portable={name}).source == after  # once is enough


@pytest.mark.parametrize(("name", "source", "new_api"), PORTABLE_FALLBACK)
def test_no_portable_form_falls_back_to_the_new_api_and_says_so(
    name: str, source: str, new_api: str
) -> None:
    if source.startswith("return"):
        source, new_api = (f"def f(ax, d, n):\n    {t}" for t in (source, new_api))
    rewrite = apply(source, [name], portable={name})
    assert rewrite.source == new_api
    assert [n for n, _ in rewrite.skipped] == [name]
    assert "no portable form" in rewrite.skipped[0][1]


def test_the_portable_form_is_asked_for_only_where_the_new_api_is_missing() -> None:
    names = ["pandas-applymap-to-map", "pandas-freq-aliases", "matplotlib-boxplot-tick-labels"]
    bigcodebench = {"pandas": "2.0.3", "matplotlib": "3.7.0", "numpy": "1.21.2"}
    assert portable_for(names, bigcodebench) == tuple(names)
    assert portable_for(names, {"pandas": "2.1.4", "matplotlib": "3.9.0"}) == (
        "pandas-freq-aliases",
    )
    assert portable_for(names, {"pandas": "2.2.3", "matplotlib": "3.10.1"}) == ()
    assert portable_for(names, {}) == ()  # nothing known: the new API
    # a codemod without a portable form never is
    assert portable_for(["numpy-nan-inf-aliases"], {"numpy": "1.21.2"}) == ()
    # without asking, the new API (DS-1000's repairs, model answers)
    assert apply("x = df.applymap(f)\n").source == "x = df.map(f)\n"


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ("M", "MonthEnd()"),
        ("2M", "MonthEnd(2)"),
        ("-1M", "MonthEnd(-1)"),
        ("Q", "QuarterEnd(startingMonth=12)"),
        ("Q-MAR", "QuarterEnd(startingMonth=3)"),
        ("A", "YearEnd()"),
        ("Y-JUN", "YearEnd(month=6)"),
        ("BM", "BusinessMonthEnd()"),
        ("SM", "SemiMonthEnd()"),
        ("M-JAN", None),
        ("ME", None),
        ("W", None),
        ("AS", None),  # 'YS' is read by every pandas
        ("1M2D", None),
        ("Q-XYZ", None),
    ],
)
def test_portable_offset(text: str, offset: str | None) -> None:
    assert portable_offset(text) == offset


@pytest.mark.parametrize(("name", "before", "after"), CASES)
def test_codemod(name: str, before: str, after: str) -> None:
    rewrite = apply(before, [name])
    assert rewrite.source == after
    assert rewrite.applied == ((name,) if after != before else ())


@pytest.mark.parametrize(("name", "before", "after"), CASES)
def test_applying_twice_is_applying_once(name: str, before: str, after: str) -> None:
    assert apply(after, [name]).source == after
    once = apply(before).source
    assert apply(once).source == once


def test_every_codemod_has_cases() -> None:
    covered = {name for name, _, _ in CASES} | {name for name, _, _ in SKIPS}
    assert covered >= set(CODEMODS) - {"numpy2-legacy-print"}  # tested on its own below


def test_context_settings_are_opt_in_and_never_for_solutions() -> None:
    for name in ("numpy2-legacy-print", "pandas3-object-strings"):
        assert name not in DEFAULT
        assert name not in FOR_SOLUTIONS


def test_codemods_that_cannot_see_types_are_chosen_by_the_failure_only() -> None:
    """Most to_datetime calls and element assignments are fine: never tried blindly."""
    errors = {e.codemod: e.error for e in load_catalogue() if e.error is not None}
    for name in (
        "pandas-to-datetime-per-value",
        "numpy-array-to-element-item",
        "numpy-nonzero-0d",
        "scipy-mode-scalar",
        "pandas-read-json-literal",
    ):
        assert name not in DEFAULT
        assert name in FOR_SOLUTIONS
        assert errors[name] is not None
    assert errors["pandas-to-datetime-per-value"].search(
        'time data "2016-05-19 21:25:00" doesn\'t match format " %Y-%m-%d %H:%M:%S", at position 1'
    )


@pytest.mark.parametrize(
    ("version", "calls"), [("2.2.3", []), ("3.1.1", [("future.infer_string", False)])]
)
def test_the_object_strings_guard_sets_the_option_on_pandas_3_only(
    version: str, calls: list[tuple[str, bool]]
) -> None:
    """future.infer_string is no pandas 1 option: the guard sets it on pandas 3 only."""
    seen: list[tuple[str, bool]] = []
    fake = types.ModuleType("pandas")
    fake.__version__ = version  # type: ignore[attr-defined]
    fake.set_option = lambda key, value: seen.append((key, value))  # type: ignore[attr-defined]
    context = apply("import pandas as pd\n", ["pandas3-object-strings"]).source
    exec(context.replace("import pandas as pd\n", ""), {"pd": fake})
    assert seen == calls


# (codemod, source, part of the reason it gives for leaving a use alone)
SKIPS: list[tuple[str, str, str]] = [
    (
        "pandas-append-to-concat",
        "out = out.append(pd.Series([1]), ignore_index=True)\n",
        "cannot tell",
    ),
    (
        "scipy-integrate-renames",
        "from scipy import integrate\nz = integrate.simps(y, x, even='avg')\n",
        "simpson has no even=",
    ),
    (
        "pandas3-object-strings",
        "from pandas import DataFrame\ndf = DataFrame({'a': ['x']})\n",
        "pandas is imported by name only",
    ),
    ("pandas-replace-method", "x = s.replace(0, method='ffill', limit=1)\n", "limit="),
    ("pandas-replace-method", "x = s.replace(v, method='ffill')\n", "not a literal"),
    ("pandas-replace-method", "x = f().replace(0, method='ffill')\n", "evaluate again"),
    (
        "pandas-replace-method",
        "x = s.replace(0, method='ffill', inplace=True)\n",
        "inside an expression",
    ),
    ("pandas-chained-assignment", "f()['A'].iloc[0] = 1\n", "not a name"),
    ("pandas-to-datetime-per-value", "x = pd.to_datetime(['2020-01-01'])\n", "not a Series"),
    ("pandas-fillna-method-to-ffill", "y = df.fillna(method=how)\n", "not a literal"),
    (
        "pandas-fillna-method-to-ffill",
        "y = df.fillna(method='ffill', downcast='infer')\n",
        "do not take",
    ),
    (
        "pandas-set-axis-inplace",
        "x = df.set_axis(['a'], axis=1, inplace=True)\n",
        "inside an expression",
    ),
    (
        "pandas-delim-whitespace-to-sep",
        "t = pd.read_csv(p, sep=',', delim_whitespace=True)\n",
        "beside a separator",
    ),
    (
        "scipy-interp2d",
        "import scipy.interpolate as intp\nf = intp.interp2d(x, y, a)\n",
        "no drop-in replacement",
    ),
    (
        "scipy-interp2d",
        "from scipy.interpolate import interp2d\nf = interp2d(x, y, z, kind='linear')\n",
        "no drop-in replacement",
    ),
    (
        "scipy-misc-to-datasets",
        "from scipy.misc import derivative\nd = derivative(f, 2.0, dx=1e-4)\n",
        "derivative has no drop-in",
    ),
    (
        "scipy-quadrature-to-quad",
        "w = scipy.integrate.quadrature(f, 0, 1, maxiter=100)\n",
        "no counterpart",
    ),
    (
        "scipy-misc-to-datasets",
        "from sklearn import datasets\nfrom scipy import misc\nimg = misc.face()\n",
        "taken",
    ),
    (
        "tensorflow-optimizer-lr-keyword",
        "opt = tf.keras.optimizers.SGD(learning_rate=0.1, decay=0.5)\n",
        "schedules",
    ),
]


@pytest.mark.parametrize(("name", "source", "reason"), SKIPS)
def test_uses_left_alone_say_why(name: str, source: str, reason: str) -> None:
    rewrite = apply(source, [name])
    assert rewrite.source == source
    assert rewrite.applied == ()
    assert [n for n, _ in rewrite.skipped] == [name]
    assert reason in rewrite.skipped[0][1]


def test_formatting_and_comments_elsewhere_are_kept() -> None:
    before = _d("""
        # a context, oddly formatted on purpose
        import numpy   as np ;  import pandas as pd

        def   tidy( frame ) :   # keep me
            frame = frame.fillna(method = "ffill")   # and me
            return frame.groupby( "k" ).sum( )

        x = [1,2,
             np.NaN ,   # trailing
        ]
    """)
    after = _d("""
        # a context, oddly formatted on purpose
        import numpy   as np ;  import pandas as pd

        def   tidy( frame ) :   # keep me
            frame = frame.ffill()   # and me
            return frame.groupby( "k" ).sum( numeric_only=True)

        x = [1,2,
             np.nan ,   # trailing
        ]
    """)
    rewrite = apply(before)
    assert rewrite.source == after
    assert rewrite.applied == (
        "numpy-nan-inf-aliases",
        "pandas-fillna-method-to-ffill",
        "pandas-groupby-numeric-only",
    )
    assert rewrite.skipped == ()


def test_nothing_to_do_is_no_change() -> None:
    source = "import numpy as np\nx = np.nan\n"
    assert apply(source) == Rewrite(source)


@pytest.mark.parametrize(
    "source", ["def f(:\n", "print 'python 2'\n", "x = (\n", "    x = (\n", "\x00"]
)
def test_unparseable_source_comes_back_unchanged(source: str) -> None:
    rewrite = apply(source)
    assert rewrite.source == source
    assert rewrite.applied == ()
    assert [n for n, _ in rewrite.skipped] == list(DEFAULT)
    assert all(reason.startswith("source does not parse") for _, reason in rewrite.skipped)


def test_an_indented_function_body_comes_back_indented() -> None:
    """DS-1000's solutions to "complete this function" problems are the body alone."""
    body = _d("""
        placeholder
            df["when"] = df["when"].fillna(method="ffill")  # carry forward
            result = df.groupby(df.index // 3).mean()

            return result
    """).removeprefix("placeholder\n")
    rewrite = apply(body)
    assert rewrite.source == body.replace('fillna(method="ffill")', "ffill()").replace(
        ".mean()", ".mean(numeric_only=True)"
    )
    assert rewrite.applied == ("pandas-fillna-method-to-ffill", "pandas-groupby-numeric-only")


def test_no_import_goes_above_an_indented_body() -> None:
    body = "    from numpy import product\n    y = product(x)\n"
    rewrite = apply(body, ["numpy-product-to-prod"])
    assert rewrite.source == body
    assert rewrite.skipped == (
        ("numpy-product-to-prod", "it would add an import above an indented snippet"),
    )


def test_an_unknown_codemod_is_an_error() -> None:
    with pytest.raises(KeyError, match="no-such-codemod"):
        apply("x = 1\n", ["no-such-codemod"])


def test_without_ruff_its_fixes_are_skipped_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "ruff.__main__", None)  # importing it fails
    source = "import numpy as np\nx = np.NaN + np.NINF\ny = np.in1d(a, b)\n"
    rewrite = apply(source, ["numpy-nan-inf-aliases", "numpy-in1d-to-isin"])
    # what LibCST does itself still happens
    assert rewrite.source == "import numpy as np\nx = np.NaN + -np.inf\ny = np.isin(a, b).ravel()\n"
    ((name, reason),) = rewrite.skipped
    assert name == "numpy-nan-inf-aliases"
    assert "ruff is not installed" in reason


def test_the_legacy_print_guard_goes_after_the_numpy_import() -> None:
    context = _d("""
        import pandas as pd
        import numpy as np  # arrays
        df = pd.DataFrame({"a": [1.0]})
    """)
    rewrite = apply(context, ["numpy2-legacy-print"])
    assert rewrite.source == _d("""
        import pandas as pd
        import numpy as np  # arrays
        if int(np.__version__.split(".")[0]) >= 2:  # print scalars as NumPy 1 did
            np.set_printoptions(legacy="1.25")
        df = pd.DataFrame({"a": [1.0]})
    """)
    assert apply(rewrite.source, ["numpy2-legacy-print"]).source == rewrite.source


@pytest.mark.parametrize(("version", "calls"), [("1.26.4", []), ("2.1.3", [{"legacy": "1.25"}])])
def test_the_legacy_print_guard_is_harmless_on_numpy_1(
    version: str, calls: list[dict[str, str]]
) -> None:
    """legacy="1.25" is no NumPy 1 option: the guard calls set_printoptions on NumPy 2 only."""
    seen: list[dict[str, str]] = []
    fake = types.ModuleType("numpy")
    fake.__version__ = version  # type: ignore[attr-defined]
    fake.set_printoptions = lambda **options: seen.append(options)  # type: ignore[attr-defined]
    context = apply("import numpy as np\n", ["numpy2-legacy-print"]).source
    exec(context.replace("import numpy as np\n", ""), {"np": fake})
    assert seen == calls


@pytest.mark.parametrize(
    "source",
    [
        "import pandas as pd\ndf = pd.DataFrame()\n",  # no numpy: nothing prints its scalars
        "import numpy\nnumpy.set_printoptions(legacy='1.25')\n",  # done already
    ],
)
def test_the_legacy_print_guard_only_where_wanted(source: str) -> None:
    assert apply(source, ["numpy2-legacy-print"]).applied == ()


def test_the_legacy_print_guard_is_opt_in() -> None:
    assert "numpy2-legacy-print" not in DEFAULT
    assert apply("import numpy as np\n").applied == ()


@pytest.mark.parametrize(
    ("text", "offsets", "new"),
    [
        ("T", True, "min"),
        ("5T", False, "5min"),
        ("1H30T", True, "1h30min"),
        ("-2H", True, "-2h"),
        ("M", True, "ME"),
        ("M", False, "M"),
        ("A-DEC", True, "YE-DEC"),
        ("AS-JAN", True, "YS-JAN"),
        ("2BM", True, "2BME"),
        ("W-SUN", True, "W-SUN"),
        ("15min", True, "15min"),
        ("ME", True, "ME"),
        ("Temperature", True, None),
        ("", True, None),
        ("x-y", True, None),
        ("5 T", True, None),
    ],
)
def test_new_frequency(text: str, offsets: bool, new: str | None) -> None:
    assert new_frequency(text, offsets=offsets) == new


def test_diff() -> None:
    before = "import numpy as np\nx = np.NaN\n"
    after = apply(before).source
    assert diff(before, after, "answer.py") == (
        "--- a/answer.py\n+++ b/answer.py\n@@ -1,2 +1,2 @@\n import numpy as np\n"
        "-x = np.NaN\n+x = np.nan\n"
    )
    assert diff(before, before, "answer.py") == ""
    assert diff("x = 1", "x = 2", "p.py").endswith("+x = 2\n\\ No newline at end of file\n")


def test_codemods_describe_themselves() -> None:
    libraries = {e.library for e in load_catalogue()}
    for name, codemod in CODEMODS.items():
        assert codemod.name == name
        assert name == name.lower() and " " not in name
        assert codemod.library in libraries
        assert codemod.description and "\n" not in codemod.description
        assert codemod.reference


def test_the_catalogue_and_the_codemods_name_each_other() -> None:
    named = {e.codemod for e in load_catalogue() if e.codemod is not None}
    assert named - set(CODEMODS) == set(), "catalogue entries name codemods that do not exist"
    assert set(CODEMODS) - named == set(), "codemods no catalogue entry names"
    for entry in load_catalogue():
        if entry.codemod is not None:
            assert entry.library == CODEMODS[entry.codemod].library, entry.old


def test_a_catalogue_codemod_must_be_a_name(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[[api]]\nlibrary = "numpy"\nold = "x"\nnew = "y"\npattern = "x"\ncodemod = 3\n'
    )
    with pytest.raises(ProblemError, match=r"api\[0\]\.codemod"):
        load_catalogue(path)
