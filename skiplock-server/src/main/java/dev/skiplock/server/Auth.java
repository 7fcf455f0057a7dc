package dev.skiplock.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.skiplock.JobClient;
import dev.skiplock.JobPage;
import dev.skiplock.JobQuery;
import dev.skiplock.Names;
import dev.skiplock.QueueActivity;
import dev.skiplock.QueueCount;
import dev.skiplock.Skiplock;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Bearer tokens → tenants (API.md). Only SHA-256 hashes of tokens are configured; tenant {@code *}
 * is an admin token: it enqueues as tenant {@code default}, administers queues and workers, and sees
 * and acts on every tenant's jobs (the job's own tenant client, found by {@link Skiplock#tenantOf}).
 * With no tokens every request is tenant {@code default} (its jobs only), the server only
 * listens on loopback, and it answers only its own machine's programs ({@link LocalCallers}).
 */
final class Auth {
    static final String ADMIN = "*";
    private static final String TENANT = "skiplock.tenant";
    private static final String IS_ADMIN = "skiplock.admin";
    private static final String ALL_TENANTS = "skiplock.allTenants";

    private final Map<String, String> tenantByHash;
    private final Skiplock skiplock;
    /** Who a server without tokens answers. */
    private final LocalCallers localCallers;

    Auth(Map<String, String> tenantByHash, Skiplock skiplock, String listenHost) {
        checkTokens(tenantByHash);
        this.tenantByHash = Map.copyOf(tenantByHash);
        this.skiplock = skiplock;
        this.localCallers = new LocalCallers(listenHost);
    }

    /** Refuses a token whose hash is not a SHA-256 in hex or whose tenant is not a name. */
    static void checkTokens(Map<String, String> tenantByHash) {
        tenantByHash.forEach((hash, tenant) -> {
            if (!hash.matches("[0-9a-f]{64}")) {
                throw new IllegalArgumentException("tokens: expected '<tenant> <sha256-hex>' lines, got hash '" + hash + "'");
            }
            if (!tenant.equals(ADMIN)) {
                Names.check("tokens", tenant);
            }
        });
    }

    boolean enabled() {
        return !tenantByHash.isEmpty();
    }

    /** Before a call outside the API that tells about jobs ({@code /metrics}): only its own machine's, without tokens. */
    void localOnly(Context ctx) {
        if (!enabled()) {
            localCallers.check(ctx);
        }
    }

    /** Before every {@code /api/v1} call: resolves the caller's tenant or answers 401. */
    void authenticate(Context ctx) {
        if (!enabled()) {
            localCallers.check(ctx);
            ctx.attribute(TENANT, Skiplock.DEFAULT_TENANT);
            ctx.attribute(IS_ADMIN, true);
            ctx.attribute(ALL_TENANTS, false);
            return;
        }
        String header = ctx.header("Authorization");
        String tenant = header != null && header.regionMatches(true, 0, "Bearer ", 0, "Bearer ".length()) // any case (RFC 9110)
                ? tenantByHash.get(sha256(header.substring("Bearer ".length()).strip())) : null;
        if (tenant == null) {
            ctx.header("WWW-Authenticate", "Bearer");
            throw new ApiError(401, "unauthenticated", "a valid bearer token is required", "Authorization");
        }
        ctx.attribute(TENANT, tenant.equals(ADMIN) ? Skiplock.DEFAULT_TENANT : tenant);
        ctx.attribute(IS_ADMIN, tenant.equals(ADMIN));
        ctx.attribute(ALL_TENANTS, tenant.equals(ADMIN));
    }

    /** The caller's tenant-scoped client (what it enqueues through). */
    JobClient client(Context ctx) {
        return skiplock.tenant(ctx.attribute(TENANT));
    }

    /**
     * The client to act on job {@code id} through: the caller's own, or for an admin token the job's
     * tenant's. A job the caller may not see (or none) gets the caller's client, which answers 404.
     */
    JobClient client(Context ctx, UUID id) {
        if (!allTenants(ctx)) {
            return client(ctx);
        }
        return skiplock.tenantOf(id).map(skiplock::tenant).orElseGet(() -> client(ctx));
    }

    /** {@code GET /api/v1/queues}: an admin token counts every tenant's jobs, anyone else their own tenant's. */
    List<QueueCount> count(Context ctx) {
        return allTenants(ctx) ? skiplock.countAllTenants() : client(ctx).count();
    }

    /** {@code GET /api/v1/queues}: the oldest waiting job and finishes per minute, with the same scope as {@link #count}. */
    List<QueueActivity> activity(Context ctx) {
        return allTenants(ctx) ? skiplock.activityAllTenants() : client(ctx).activity();
    }

    /**
     * {@code GET /api/v1/jobs}: an admin token lists every tenant, or the one {@code tenant} names;
     * anyone else lists their own tenant, and naming another is a 403 (never a view of its jobs).
     */
    JobPage list(Context ctx, JobQuery query, String tenant) {
        if (tenant != null) {
            Names.check("tenant", tenant);
            if (allTenants(ctx)) {
                return skiplock.tenant(tenant).list(query);
            }
            if (!tenant.equals(ctx.attribute(TENANT))) {
                throw new ApiError(403, "permission_denied", "only an admin token lists another tenant's jobs",
                        "tenant");
            }
        }
        return allTenants(ctx) ? skiplock.listAllTenants(query) : client(ctx).list(query);
    }

    /** {@code GET /api/v1/whoami}: the caller's tenant and what its token may do (the dashboard asks). */
    void whoami(Context ctx) {
        ObjectNode answer = ServerJson.object();
        answer.put("tenant", ctx.<String>attribute(TENANT));
        answer.put("admin", Boolean.TRUE.equals(ctx.attribute(IS_ADMIN)));
        answer.put("allTenants", allTenants(ctx));
        SkiplockServer.json(ctx, 200, answer);
    }

    private static boolean allTenants(Context ctx) {
        return Boolean.TRUE.equals(ctx.attribute(ALL_TENANTS));
    }

    /** Queue and worker administration affects every tenant: admin tokens only. */
    void requireAdmin(Context ctx) {
        if (!Boolean.TRUE.equals(ctx.attribute(IS_ADMIN))) {
            throw new ApiError(403, "permission_denied", "this needs an admin token", "Authorization");
        }
    }

    static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
