# One image for every Riverboat service: `riverboat lobby serve`, `riverboat table serve`,
# `riverboat dealer serve`, `riverboat settlement serve` (and `settlement migrate`, the tools).
# Both stages use the same Python, pinned to the release the project is tested with, so the
# virtual environment built in the first stage runs unchanged in the second.

# Build: the full image has the compilers that packages without a wheel (eval7) need.
FROM python:3.11.7-bookworm AS build
WORKDIR /src
RUN python -m venv /opt/riverboat
COPY pyproject.toml README.md ./
COPY libs ./libs
COPY services ./services
RUN /opt/riverboat/bin/pip install --no-cache-dir .

# Run: the slim image, the virtual environment, an unprivileged user, no compilers.
FROM python:3.11.7-slim-bookworm
RUN groupadd --system --gid 10001 riverboat \
    && useradd --system --uid 10001 --gid riverboat --no-log-init \
        --home-dir /var/lib/riverboat --create-home riverboat
COPY --from=build /opt/riverboat /opt/riverboat
ENV PATH=/opt/riverboat/bin:$PATH \
    PYTHONUNBUFFERED=1
USER 10001:10001
WORKDIR /var/lib/riverboat
ENTRYPOINT ["riverboat"]
CMD ["--help"]
