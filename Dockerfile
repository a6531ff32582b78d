# Tafelrunde: the web app. Used by docker-compose.yml (PostgreSQL beside it).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TAFELRUNDE_DATA_DIR=/var/lib/tafelrunde

WORKDIR /srv/tafelrunde

# Dependencies first, so code changes do not reinstall them.
COPY pyproject.toml ./
COPY app ./app
RUN pip install .

# The app finds templates, static files and migrations beside its package, so the source
# tree stays and comes first on the path (the installed copy supplies the dependencies and
# the `tafelrunde` command).
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
ENV PYTHONPATH=/srv/tafelrunde

RUN useradd --system --home-dir /var/lib/tafelrunde --create-home tafelrunde
USER tafelrunde

EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=5 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/login', timeout=4)"]

# Applies the migrations, then serves.
CMD ["tafelrunde", "serve", "--host", "0.0.0.0", "--port", "8000"]
