/**
 * A self-signed certificate for localhost and 127.0.0.1 (P-256, valid for 100 years), for tests of
 * an https upstream; made with
 *   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 \
 *     -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1
 * A test key, for nothing but tests.
 */
export const LOCALHOST_CERT = `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUTbZ6+OKe1JUG66A8frPG2uabVyowCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyOTA3MDM0M1oYDzIxMjYxMTA1
MDcwMzQzWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQl2pZ6FzMfko3ADirxicm0nwa9/hpOK9c0hk8BP9VSLO17qolIO2zl
sgJtwwYPQdI5qIYpe2PeM3yHevilOBjeo28wbTAdBgNVHQ4EFgQUds8XQ5/Ev852
RsTnvpxFjWaGRpUwHwYDVR0jBBgwFoAUds8XQ5/Ev852RsTnvpxFjWaGRpUwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSAAwRQIhAMgZbs2lkQm9OVcRV08kLZMs46EaUWI6vrBXlhPtgRYnAiBZ
jGjejL+8FTur4cWfpBJbNLbViGQrh0os9rNdlo2Q7w==
-----END CERTIFICATE-----
`;

export const LOCALHOST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgamdB7L7f+S/aMiI0
tMtHS+HBtwgkBuOQ/u0vlnonilWhRANCAAQl2pZ6FzMfko3ADirxicm0nwa9/hpO
K9c0hk8BP9VSLO17qolIO2zlsgJtwwYPQdI5qIYpe2PeM3yHevilOBje
-----END PRIVATE KEY-----
`;
