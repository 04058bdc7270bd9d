"""Reference points measured in the same run: etcd, the HTTP stack alone and raw SQLite."""
