"""What a person looks at: the run report (report.md / report.html, tree.dot / tree.png) and the
live tree on the terminal (docs/usage.md, "Run folders")."""
