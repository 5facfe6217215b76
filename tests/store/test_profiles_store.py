"""The profiles table and the sessions' device column (issue 39): a database made before them is
migrated on open, and what is stored is read back as stored."""

import sqlite3

from kt_tui.store import Store


def test_a_database_without_profiles_or_device_facts_gains_them_on_open(tmp_path):
    db = tmp_path / "old.db"
    store = Store(db)
    sid = store.create_session(kernel_path="k.cu", kernel_name="k", strategy="sweep")
    del store
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE profiles")
    conn.execute("ALTER TABLE sessions DROP COLUMN device")
    conn.commit()
    conn.close()
    store = Store(db)  # migrated: the table and the column are back, the session kept
    assert store.session(sid)["device"] is None
    store.put_profile(sid, "v1", "256", "done", {"sm_pct": 41.5, "stalls": [["wait", 3.8]]})
    store.put_profile(sid, "v1", "256", "done", {"sm_pct": 42.0})  # one per result: the latest
    store.update_session(sid, device='{"name": "NVIDIA H100 80GB HBM3"}')
    rows = Store(db).profiles(sid)
    assert [(r["version"], r["key"], r["state"], r["summary"]) for r in rows] == [
        ("v1", "256", "done", {"sm_pct": 42.0})
    ]
    store.delete_session(sid)
    assert store.profiles(sid) == []
