"""`train_bpe(..., executor=...)`: counting pre-tokens is a map and a sum, so any
`concurrent.futures.Executor` can count them, a Dask cluster's included, with the same merges."""

import logging
from concurrent.futures import ThreadPoolExecutor

import pytest

from bpe_course import corpora, train_bpe

EOT = "<|endoftext|>"
TEXT = (corpora.prose()[:100_000] + EOT) * 2 + corpora.python_code(60_000)
CHUNK = 20_000                  # about a dozen chunks, so the executor gets real work


@pytest.fixture(scope="module")
def expected():
    return train_bpe(TEXT, 400, [EOT], chunk_bytes=CHUNK)   # the default: counted here


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    path.write_bytes(TEXT.encode("utf-8"))
    return path


def test_any_executor_counts_with_the_same_merges(expected, corpus_file):
    with ThreadPoolExecutor(2) as pool:
        assert train_bpe(TEXT, 400, [EOT], chunk_bytes=CHUNK, executor=pool) == expected
        assert train_bpe(corpus_file, 400, [EOT], chunk_bytes=CHUNK, executor=pool,
                         num_workers=3) == expected
        assert pool.submit(len, "still open").result() == 10   # used, not shut down


def test_something_that_is_not_an_executor_is_refused():
    with pytest.raises(TypeError, match="concurrent.futures.Executor"):
        train_bpe(TEXT, 300, executor=4)


@pytest.fixture(scope="module")
def dask_client():
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        pytest.skip("dask.distributed is not installed: pip install 'dask[distributed]'")
    # Worker processes, as on a real cluster: tasks and their results travel pickled.
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        yield client


def test_a_dask_cluster_learns_the_same_merges(expected, corpus_file, dask_client):
    executor = dask_client.get_executor()
    # A text is sent to the workers chunk by chunk; a file is read by the workers themselves.
    assert train_bpe(TEXT, 400, [EOT], chunk_bytes=CHUNK, executor=executor) == expected
    assert train_bpe(corpus_file, 400, [EOT], chunk_bytes=CHUNK, executor=executor,
                     num_workers=2) == expected


def test_a_bad_chunk_on_a_dask_worker_is_the_same_clear_error(tmp_path, dask_client):
    path = tmp_path / "latin1.txt"
    path.write_bytes("caf\xe9 ".encode("latin-1") * 10)
    with pytest.raises(ValueError, match="is not UTF-8 text"):
        train_bpe(path, 300, executor=dask_client.get_executor())
