"""Web glue shared by the domain routes: dependencies, templates, security, errors."""
