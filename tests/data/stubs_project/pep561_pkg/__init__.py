def version(major):
    return f"v{major + 1}"
