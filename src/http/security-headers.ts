/**
 * Headers every answer carries (issue 25): no content sniffing, and, when the service is public
 * over https, HSTS so a browser never talks to it in clear again.
 */
export function securityHeaders(http: { isHttps: boolean }): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    ...(http.isHttps ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  };
}
