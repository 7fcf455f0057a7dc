package dev.skiplock.server;

import dev.skiplock.JobClient;
import dev.skiplock.Names;
import dev.skiplock.Skiplock;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * Bearer tokens → tenants (API.md). Only SHA-256 hashes of tokens are configured; tenant {@code *}
 * is an admin token (tenant {@code default}, plus queue and worker administration). With no tokens
 * every request is tenant {@code default}, and the server only listens on loopback.
 */
final class Auth {
    static final String ADMIN = "*";
    private static final String TENANT = "skiplock.tenant";
    private static final String IS_ADMIN = "skiplock.admin";

    private final Map<String, String> tenantByHash;
    private final Skiplock skiplock;

    Auth(Map<String, String> tenantByHash, Skiplock skiplock) {
        tenantByHash.forEach((hash, tenant) -> {
            if (!hash.matches("[0-9a-f]{64}")) {
                throw new IllegalArgumentException("tokens: expected '<tenant> <sha256-hex>' lines, got hash '" + hash + "'");
            }
            if (!tenant.equals(ADMIN)) {
                Names.check("tokens", tenant);
            }
        });
        this.tenantByHash = Map.copyOf(tenantByHash);
        this.skiplock = skiplock;
    }

    boolean enabled() {
        return !tenantByHash.isEmpty();
    }

    /** Before every {@code /api/v1} call: resolves the caller's tenant or answers 401. */
    void authenticate(Context ctx) {
        if (!enabled()) {
            ctx.attribute(TENANT, Skiplock.DEFAULT_TENANT);
            ctx.attribute(IS_ADMIN, true);
            return;
        }
        String header = ctx.header("Authorization");
        String tenant = header != null && header.startsWith("Bearer ")
                ? tenantByHash.get(sha256(header.substring("Bearer ".length()).strip())) : null;
        if (tenant == null) {
            throw new ApiError(401, "unauthenticated", "a valid bearer token is required", "Authorization");
        }
        ctx.attribute(TENANT, tenant.equals(ADMIN) ? Skiplock.DEFAULT_TENANT : tenant);
        ctx.attribute(IS_ADMIN, tenant.equals(ADMIN));
    }

    /** The caller's tenant-scoped client. */
    JobClient client(Context ctx) {
        return skiplock.tenant(ctx.attribute(TENANT));
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
