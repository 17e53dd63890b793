"""owl-bt-push: the `push` skill plugin (entry point `owl_bt.skills: push`)."""
