// Starts Swagger UI on /api/docs (an external file: the CSP allows no inline script).
"use strict";
(function () {
  var root = document.getElementById("swagger-ui");
  window.ui = window.SwaggerUIBundle({
    url: root.dataset.openapiUrl,
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
})();
