"""The foundations every layer reads: options, the settings they parse into, tie policies and
numbers."""
