"""riverboat.paging: AIP-158 page sizes and tokens.

The oracle for paging is a list cut by hand: whatever page sizes a client picks, the pages
it is given, concatenated, are the whole list, and the last page has no next token. The
lister below uses the module the way every list RPC does (cursor = offset into the list).
"""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from riverboat import paging
from riverboat.paging import PageTokenError

ITEMS = [f"item-{n}" for n in range(37)]


def _list(query: dict[str, str], size: int, token: str) -> tuple[list[str], str]:
    """A list RPC over ITEMS filtered by ``query["prefix"]``, paged by riverboat.paging."""
    page = paging.page_request(
        "ListThings", query, page_size_requested=size, page_token=token, default=5, maximum=10
    )
    chosen = [i for i in ITEMS if i.startswith(query.get("prefix", ""))]
    start = page.cursor if isinstance(page.cursor, int) else 0
    end = start + page.size
    return chosen[start:end], page.next_token(end if end < len(chosen) else None)


@given(
    sizes=st.lists(st.integers(0, 25), min_size=1, max_size=60),
    prefix=st.sampled_from(["", "item-1", "item-2", "none"]),
)
def test_pages_concatenated_are_the_whole_list(sizes: list[int], prefix: str) -> None:
    query = {"prefix": prefix}
    whole = [i for i in ITEMS if i.startswith(prefix)]
    got: list[str] = []
    token = ""
    for n, size in enumerate(sizes * 40):  # enough pages to reach the end at any size
        items, token = _list(query, size, token)
        expected_size = 5 if size == 0 else min(size, 10)
        assert len(items) <= expected_size
        got += items
        if not token:
            break
        assert len(items) == expected_size, f"page {n} is short but not the last"
    assert token == ""
    assert got == whole


def test_page_size_zero_is_the_default_and_over_the_maximum_is_reduced() -> None:
    assert paging.page_size(0, default=20, maximum=100) == 20
    assert paging.page_size(7, default=20, maximum=100) == 7
    assert paging.page_size(100, default=20, maximum=100) == 100
    assert paging.page_size(10**9, default=20, maximum=100) == 100
    with pytest.raises(PageTokenError) as err:
        paging.page_size(-1, default=20, maximum=100)
    assert (err.value.field, err.value.reason) == ("page_size", "BAD_PAGE_SIZE")


def _token_after_first_page(query: dict[str, str]) -> str:
    _, token = _list(query, 3, "")
    assert token
    return token


def test_a_token_of_another_query_or_rpc_is_refused() -> None:
    token = _token_after_first_page({"prefix": "item-1"})
    assert _list({"prefix": "item-1"}, 3, token)[0] == ["item-12", "item-13", "item-14"]
    for other in ({"prefix": "item-2"}, {}, {"prefix": "item-1", "more": "x"}):
        with pytest.raises(PageTokenError) as err:
            _list(other, 3, token)
        assert (err.value.field, err.value.reason) == ("page_token", "PAGE_TOKEN_QUERY_MISMATCH")
    with pytest.raises(PageTokenError):
        paging.page_request(
            "ListOtherThings",
            {"prefix": "item-1"},
            page_size_requested=3,
            page_token=token,
            default=5,
            maximum=10,
        )


def test_the_query_digest_ignores_key_order() -> None:
    assert paging.query_digest("L", {"a": "1", "b": 2}) == paging.query_digest(
        "L", {"b": 2, "a": "1"}
    )


@given(data=st.data())
def test_an_altered_token_is_refused(data: st.DataObject) -> None:
    token = _token_after_first_page({"prefix": ""})
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    where = data.draw(st.integers(0, len(token) - 1))
    edit = data.draw(st.sampled_from(["replace", "delete", "insert", "append"]))
    char = data.draw(st.sampled_from(alphabet))
    if edit == "replace":
        char = data.draw(st.sampled_from(alphabet.replace(token[where], "")))
        changed = token[:where] + char + token[where + 1 :]
    elif edit == "delete":
        changed = token[:where] + token[where + 1 :]
    elif edit == "insert":
        changed = token[:where] + char + token[where:]
    else:
        changed = token + char
    with pytest.raises(PageTokenError) as err:
        _list({"prefix": ""}, 3, changed)
    assert err.value.reason == "BAD_PAGE_TOKEN"


@pytest.mark.parametrize(
    "token",
    [
        "0",
        "1",
        "-5",
        "%%%",
        "٣",
        "x" * 600,
        base64.urlsafe_b64encode(b'{"v":1,"q":"x","c":3}').decode(),  # no checksum
    ],
)
def test_tokens_this_module_never_made_are_refused(token: str) -> None:
    with pytest.raises(PageTokenError) as err:
        _list({}, 3, token)
    assert (err.value.field, err.value.reason) == ("page_token", "BAD_PAGE_TOKEN")


def test_a_cursor_may_be_a_key() -> None:
    token = paging.next_page_token("ListThings", {"q": "x"}, "20261202T000000.000000|t-1")
    page = paging.page_request(
        "ListThings", {"q": "x"}, page_size_requested=0, page_token=token, default=5, maximum=10
    )
    assert page.cursor == "20261202T000000.000000|t-1"
    assert paging.next_page_token("ListThings", {"q": "x"}, None) == ""


def test_every_other_last_character_is_refused() -> None:
    """Base64's last character may carry unused bits; a token differing only there decodes to
    the same bytes and must still be refused (one spelling per token)."""
    tokens = [paging.next_page_token("ListThings", {}, n) for n in range(1, 4)]
    token = next(t for t in tokens if len(t) % 4)  # a token whose last character has spare bits
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    same_bytes = 0
    for char in alphabet.replace(token[-1], ""):
        changed = token[:-1] + char
        padded = changed + "=" * (-len(changed) % 4)
        raw_same = base64.urlsafe_b64decode(padded) == base64.urlsafe_b64decode(
            token + "=" * (-len(token) % 4)
        )
        same_bytes += raw_same
        with pytest.raises(PageTokenError):
            paging.page_request(
                "ListThings", {}, page_size_requested=1, page_token=changed, default=5, maximum=10
            )
    assert same_bytes  # the case this test is about did occur
