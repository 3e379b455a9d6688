# The gateway in a container: official Deno image, dependencies cached at build time, non-root user.
FROM denoland/deno:2.9.6

WORKDIR /app
ENV DENO_DIR=/deno-dir \
    DENO_NO_UPDATE_CHECK=1 \
    DATA_DIR=/data \
    PORT=8000

# Dependencies first, so a code change does not download them again.
COPY deno.json deno.lock ./
RUN deno install
COPY . .
# Fetch and type-check every module now, so a container starts without the registry.
RUN deno cache main.ts cli.ts \
 && mkdir -p /data \
 && chown -R deno:deno /data /deno-dir

USER deno
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["deno", "eval", "const r = await fetch(`http://127.0.0.1:${Deno.env.get('PORT') ?? 8000}/health`); Deno.exit(r.ok ? 0 : 1)"]

# Production: no APP_ENV means production, which refuses to start without APP_SECRET, ADMIN_TOKEN and
# TRON_MNEMONIC (README "Configuration").
CMD ["deno", "task", "serve"]
