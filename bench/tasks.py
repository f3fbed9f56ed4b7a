"""The task check: can an agent answer its next questions about a list result from the shaped text alone?

No model is involved. For each list payload the questions are the ones an agent typically asks next:

- the identifier, title and status of the k-th record, for k = first, middle, last;
- how many records the result has;
- which record has a given identifier (answered by its title, or its identifier when there is no title field),
  for the same three records;
- for some payloads, more members of the same three records, as dotted paths that may pick a list's item by its
  position (``values.-1.1``: the value of a series' latest sample; ``nodes.0.commit``: a connection's first node).

A small deterministic reader answers them from the text a tool sent to the model, the same way for every tool:

1. if the text is valid JSON, the records are every list of objects that carry the identifier field, plus every
   columnar table (``{"fields": [...], "rows": [[...]]}``, hostshape's ``_index``), in document order; members an
   envelope states once for all records (hostshape's ``_hostshape.same``) apply to each. A record that states its
   position in the list (a ``#`` member or column, from 0, as an envelope that spreads an index over the list says:
   hostshape's ``_index`` rows, ``_middle`` and ``_last``) is the record at that position, and the records after it
   without one follow it; an object that states its position and carries the identifier is a record wherever it is;
   what two records at one position say is read together; members an envelope states as built from each record's own
   values (hostshape's ``_hostshape.derived``: templates such as ``https://host/{zone}/types/{name}``, syntax in
   hostshape.records.derived) are rebuilt in every record and row that holds their parts, a lossless re-encoding
   decoded as a model told the format would, like terse's codec;
2. otherwise, every ``"<id field>": value`` member in the text, in order, each with the ``"title"`` / ``"state"``
   members found after it and before the next identifier (so cut-off JSON, previews and JSON fragments count).

Lossless re-encodings are read in their decoded form (``bench/hostpeers.VIEWS``: terse's codec, leancontext's
columns), as a model that was told the format could. A count is answered when the reader sees all records of a
complete JSON document, or when the text states the number next to a counting word (``"total":30``,
``"row_count": 30``, ``30 records``). A title counts when it is the record's title or a cut-off start of it (at least
20 characters, or all of it), so tools that shorten long text are not penalised.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from bench.corpus import LIST_IDENTIFIERS, Payload
from hostshape.records.derived import rebuilt

#: file -> (title field, status field), dotted paths into a record; None where the records have none.
FIELDS: dict[str, tuple[str | None, str | None]] = {
    "gh_pulls_list.json": ("title", "state"),
    "gh_issues_list.json": ("title", "state"),
    "octokit_issues_page1.json": ("title", "state"),
    "gh_search_issues.json": ("title", "state"),
    "gh_commits_list.json": ("commit.message", None),
    "gh_pull_files_patches.json": (None, "status"),
    "corpus/zipkin_trace_mobile_web_install.json": ("name", "kind"),
    "corpus/jaeger_trace_genai.json": ("operationName", None),
    "corpus/grafana_dashboard_ingress_nginx.json": ("title", "type"),
    "corpus/pypi_simple_django.json": (None, "yanked"),
    "corpus/ingress_nginx_configuration.json": (None, None),
    "corpus/aws_inspector2_list_findings.json": ("title", "status"),
    "corpus/crates_io_regex_crate.json": (None, None),
    "corpus/rubygems_versions_bundler.json": (None, None),
    "corpus/aws_bedrock_list_model_invocation_jobs.json": ("jobName", "status"),
    "corpus/grafana_tempo_trace_otlp.json": ("name", None),
    "corpus/salesforce_soql_accounts_subquery.json": ("Name", None),
    "corpus/k8s_kubelet_stats_summary.json": (None, None),
    "corpus/helm_search_repo_redis_versions.json": ("name", None),
    "corpus/datadog_posture_findings_list.json": ("attributes.rule.name", "attributes.evaluation"),
    "corpus/datadog_spans_search.json": ("attributes.resource_name", None),
    "corpus/azure_commerce_ratecard.json": ("MeterName", "MeterStatus"),
    "corpus/cloudsigma_library_drives.json": ("name", "status"),
    "corpus/dockerhub_ubuntu_tags.json": (None, None),
    "corpus/fastly_services_list.json": ("name", None),
    "corpus/gcp_compute_aggregated_machine_types.json": ("description", None),
    "corpus/gcp_compute_images_coreos.json": ("name", "status"),
    "corpus/gridscale_templates.json": ("name", "status"),
    "corpus/kamatera_images_eu.json": ("name", None),
    "corpus/ktucloud_product_types.json": ("templatedesc", "productstate"),
    "corpus/linode_types.json": ("label", None),
    "corpus/mollie_payments_list_hal.json": ("description", "status"),
    "corpus/upcloud_storage_cdrom.json": ("title", "state"),
    "corpus/azure_role_definitions_list.json": ("properties.roleName", "properties.type"),
    "corpus/bitbucket_src_directory_listing.json": (None, "type"),
    "corpus/dotnet_release_notes_9_0.json": (None, "security"),
    "corpus/flutter_sdk_releases_linux.json": ("version", "channel"),
    "corpus/gcp_kms_locations.json": (None, None),
    "corpus/gcp_serviceusage_services_list.json": ("config.title", "state"),
    "corpus/gcp_vertexai_batch_prediction_jobs.json": ("displayName", "state"),
    "corpus/gitlab_merge_requests_list.json": ("title", "state"),
    "corpus/gradle_distributions_versions_all.json": (None, "snapshot"),
    "corpus/pub_dev_package_meta.json": (None, None),
    "corpus/terraform_registry_module_versions.json": (None, None),
    "corpus/godaddy_domains_tlds.json": (None, "type"),
    "corpus/hexpm_plug_package.json": (None, None),
    "corpus/mastodon_grouped_notifications_v2.json": (None, "type"),
    "corpus/mastodon_timelines_public.json": ("content", "visibility"),
    "corpus/okta_apps_list.json": ("label", "status"),
    "corpus/openstack_nova_images_detail.json": ("name", "status"),
    "corpus/packagist_monolog_p2.json": (None, None),
    "corpus/rancher_services_list.json": ("name", "state"),
    "corpus/tencentcloud_cam_list_policies.json": ("PolicyName", None),
    "corpus/vultr_v2_plans.json": (None, "type"),
    "corpus/youtube_playlist_items_list.json": ("snippet.title", None),
    "corpus/cisco_aci_top_system_class.json": ("topSystem.attributes.name", "topSystem.attributes.state"),
    "corpus/cloudflare_dns_records_page1.json": ("name", "type"),
    "corpus/docker_engine_containers_list.json": ("Image", "State"),
    "corpus/equinix_metal_device_events.json": ("body", "type"),
    "corpus/netbox_dcim_devices_list.json": ("name", "status.label"),
    "corpus/netbox_ipam_ip_addresses_list.json": ("address", "status.label"),
    "corpus/octopus_deploy_tasks_list.json": ("Description", "State"),
    "corpus/planetary_computer_stac_search_naip.json": (None, None),
    "corpus/contentful_cda_entries_cfexampleapi.json": ("fields.name", None),
    "corpus/contentful_cda_sync_initial_cfexampleapi.json": (None, "sys.type"),
    "corpus/keycloak_client_scopes_list.json": ("name", "protocol"),
    "corpus/keycloak_clients_list.json": ("clientId", None),
    "corpus/keycloak_roles_list.json": ("name", None),
    "corpus/nttcis_servers_list_xml.json": ("name", "state"),
    "corpus/dimensiondata_images_with_disk_speed_xml.json": ("ns2:name", "ns2:state"),
    "corpus/snipeit_hardware_assets.json": ("name", "status_label.name"),
    "corpus/nvd_cve_api_v2_feed.json": (None, "cve.vulnStatus"),
    "corpus/trivy_image_scan_report.json": ("Title", "Status"),
    "corpus/prometheus_range_query_cpu_throttling.json": (None, None),
    "corpus/prometheus_range_query_node_cpu_modes.json": (None, None),
    "corpus/github_graphql_pr_status_checks.json": ("node.title", "node.state"),
    "corpus/elasticsearch_msearch_hits_aggregations.json": ("_source.title", None),
    "corpus/elasticsearch_msearch_facet_filters.json": (None, None),
    "corpus/aws_lambda_list_functions.json": (None, "Runtime"),
    "corpus/aws_elasticache_describe_cache_clusters.json": (None, "CacheClusterStatus"),
    "corpus/duo_admin_endpoints.json": (None, "trusted_endpoint"),
    "corpus/aws_apigateway_get_gateway_responses.json": (None, "statusCode"),
    "corpus/aws_dynamodb_streams_get_records.json": (None, "eventName"),
    "corpus/aws_s3_list_objects.json": (None, "StorageClass"),
    "corpus/aws_route53resolver_list_firewall_rules.json": (None, "Action"),
    "corpus/aws_lambda_kinesis_event_records.json": (None, "eventName"),
    "corpus/msgraph_json_batch_responses.json": (None, "status"),
    "corpus/sentry_project_issues_list.json": ("title", "status"),
    "corpus/aws_stepfunctions_get_execution_history.json": (None, "type"),
    "corpus/aws_lambda_sqs_event_records.json": ("body", None),
    "corpus/aws_cloudformation_describe_stack_resources.json": (None, "ResourceStatus"),
}
#: file -> more members asked of the first, middle and last record: what an agent asks next of such a result (a
#: span's duration and service, a file's upload time and size, a server's TLS passthrough).
MORE: dict[str, tuple[str, ...]] = {
    "corpus/zipkin_trace_mobile_web_install.json": ("duration", "localEndpoint.serviceName"),
    "corpus/jaeger_trace_genai.json": ("duration", "processID"),
    "corpus/grafana_dashboard_ingress_nginx.json": ("datasource.uid",),
    "corpus/pypi_simple_django.json": ("upload-time", "size"),
    "corpus/ingress_nginx_configuration.json": ("sslPassthrough",),
    "corpus/jira_projects_apache.json": ("name", "projectTypeKey"),
    "corpus/slack_conversations_list.json": ("created", "num_members"),
    "corpus/datadog_hosts_list.json": ("up", "last_reported_time"),
    "corpus/aws_inspector2_list_findings.json": ("severity", "inspectorScore", "fixAvailable"),
    "corpus/crates_io_regex_crate.json": ("created_at", "yanked", "downloads"),
    "corpus/rubygems_versions_bundler.json": ("created_at", "prerelease", "downloads_count"),
    "corpus/aws_bedrock_list_model_invocation_jobs.json": ("modelId", "timeoutDurationInHours"),
    "corpus/grafana_tempo_trace_otlp.json": ("parentSpanId", "startTimeUnixNano", "endTimeUnixNano"),
    "corpus/salesforce_soql_accounts_subquery.json": ("Contacts.totalSize",),
    "corpus/k8s_kubelet_stats_summary.json": ("podRef.namespace", "startTime", "memory.workingSetBytes"),
    "corpus/helm_search_repo_redis_versions.json": ("app_version",),
    "corpus/datadog_posture_findings_list.json": ("attributes.resource", "attributes.resource_type"),
    "corpus/datadog_spans_search.json": (
        "attributes.service",
        "attributes.start_timestamp",
        "attributes.custom.duration",
    ),
    "corpus/azure_commerce_ratecard.json": ("MeterCategory", "EffectiveDate", "Unit"),
    "corpus/cloudsigma_library_drives.json": ("size", "os", "paid"),
    "corpus/dockerhub_ubuntu_tags.json": ("full_size", "last_updater"),
    "corpus/fastly_services_list.json": ("version", "updated_at", "paused"),
    "corpus/gcp_compute_aggregated_machine_types.json": ("name", "zone", "memoryMb"),
    "corpus/gcp_compute_images_coreos.json": ("creationTimestamp", "deprecated.state", "diskSizeGb"),
    "corpus/gridscale_templates.json": ("create_time", "current_price"),
    "corpus/kamatera_images_eu.json": ("os", "osDiskSizeGB"),
    "corpus/ktucloud_product_types.json": ("serviceofferingdesc", "zonedesc"),
    "corpus/linode_types.json": ("price.monthly", "vcpus", "memory"),
    "corpus/mollie_payments_list_hal.json": ("amount.value", "createdAt"),
    "corpus/upcloud_storage_cdrom.json": ("access", "size"),
    "corpus/azure_role_definitions_list.json": ("properties.description", "properties.updatedOn"),
    "corpus/bitbucket_src_directory_listing.json": ("size", "commit.hash"),
    "corpus/dotnet_release_notes_9_0.json": ("release-date", "sdk.version", "runtime.version"),
    "corpus/flutter_sdk_releases_linux.json": ("release_date", "dart_sdk_version"),
    "corpus/gcp_kms_locations.json": ("locationId", "metadata.hsmAvailable", "metadata.ekmAvailable"),
    "corpus/gcp_serviceusage_services_list.json": ("config.name",),
    "corpus/gcp_vertexai_batch_prediction_jobs.json": ("createTime", "error.message", "model"),
    "corpus/gitlab_merge_requests_list.json": ("source_branch", "merge_status", "created_at"),
    "corpus/gradle_distributions_versions_all.json": ("buildTime", "current", "rcFor"),
    "corpus/pub_dev_package_meta.json": ("published", "pubspec.environment.sdk"),
    "corpus/hexpm_plug_package.json": ("inserted_at", "has_docs"),
    "corpus/mastodon_grouped_notifications_v2.json": (
        "latest_page_notification_at",
        "status_id",
        "notifications_count",
    ),
    "corpus/mastodon_timelines_public.json": ("created_at", "account.acct", "replies_count"),
    "corpus/okta_apps_list.json": ("signOnMode", "created", "lastUpdated"),
    "corpus/openstack_nova_images_detail.json": ("updated", "progress"),
    "corpus/packagist_monolog_p2.json": ("time", "version_normalized"),
    "corpus/rancher_services_list.json": ("healthState", "created", "environmentId"),
    "corpus/tencentcloud_cam_list_policies.json": ("AddTime", "AttachEntityCount", "CreateMode"),
    "corpus/vultr_v2_plans.json": ("monthly_cost", "vcpu_count", "ram"),
    "corpus/youtube_playlist_items_list.json": (
        "snippet.publishedAt",
        "snippet.position",
        "snippet.resourceId.videoId",
    ),
    "corpus/cisco_aci_top_system_class.json": (
        "topSystem.attributes.role",
        "topSystem.attributes.address",
        "topSystem.attributes.version",
    ),
    "corpus/cloudflare_dns_records_page1.json": ("content", "ttl", "modified_on"),
    "corpus/docker_engine_containers_list.json": ("Status", "Created", "NetworkSettings.Networks.bridge.IPAddress"),
    "corpus/equinix_metal_device_events.json": ("created_at", "modified_by.full_name", "ip"),
    "corpus/netbox_dcim_devices_list.json": ("device_type.manufacturer.name", "role.name", "primary_ip.address"),
    "corpus/netbox_ipam_ip_addresses_list.json": ("interface.device.name", "interface.name"),
    "corpus/octopus_deploy_tasks_list.json": ("ErrorMessage", "CompletedTime", "Arguments.DeploymentId"),
    "corpus/planetary_computer_stac_search_naip.json": ("properties.datetime", "properties.naip:state", "collection"),
    "corpus/contentful_cda_entries_cfexampleapi.json": ("sys.contentType.sys.id", "sys.updatedAt", "fields.lives"),
    "corpus/contentful_cda_sync_initial_cfexampleapi.json": ("sys.createdAt", "sys.revision"),
    "corpus/keycloak_client_scopes_list.json": ("description",),
    "corpus/keycloak_clients_list.json": ("protocol", "publicClient", "baseUrl"),
    "corpus/keycloak_roles_list.json": ("clientRole", "containerId", "composite"),
    "corpus/nttcis_servers_list_xml.json": ("@datacenterId", "createTime", "guest.operatingSystem.@displayName"),
    "corpus/dimensiondata_images_with_disk_speed_xml.json": ("@location", "ns2:cpuCount", "ns2:created"),
    "corpus/snipeit_hardware_assets.json": ("asset_tag", "model.name", "assigned_to.email"),
    "corpus/nvd_cve_api_v2_feed.json": ("cve.published", "cve.sourceIdentifier"),
    "corpus/trivy_image_scan_report.json": ("PkgName", "Severity", "FixedVersion"),
    # a series' latest sample (its value and time), a node's field two connections down, a bucket's hits
    "corpus/prometheus_range_query_cpu_throttling.json": ("metric.container", "values.-1.1", "values.-1.0"),
    "corpus/prometheus_range_query_node_cpu_modes.json": ("values.-1.1", "values.-1.0", "values.0.0"),
    "corpus/github_graphql_pr_status_checks.json": (
        "node.reviewDecision",
        "node.statusCheckRollup.nodes.0.commit.statusCheckRollup.contexts.checkRunCount",
    ),
    "corpus/elasticsearch_msearch_hits_aggregations.json": ("_score", "_source.actors.0"),
    "corpus/elasticsearch_msearch_facet_filters.json": ("doc_count",),
    "corpus/aws_lambda_list_functions.json": ("LastModified", "MemorySize", "Role"),
    "corpus/aws_elasticache_describe_cache_clusters.json": ("Engine", "CacheNodeType", "CacheClusterCreateTime"),
    "corpus/duo_admin_endpoints.json": ("email", "os_family", "os_version", "last_updated"),
    "corpus/aws_apigateway_get_gateway_responses.json": ("defaultResponse", "responseTemplates.application/json"),
    "corpus/aws_dynamodb_streams_get_records.json": ("dynamodb.Keys.id.S", "dynamodb.SizeBytes"),
    "corpus/aws_s3_list_objects.json": ("ETag", "Size"),
    "corpus/aws_route53resolver_list_firewall_rules.json": ("Priority", "FirewallDomainListId"),
    "corpus/aws_lambda_kinesis_event_records.json": ("kinesis.partitionKey", "kinesis.data"),
    "corpus/msgraph_json_batch_responses.json": ("body.error.code", "body.error.message", "headers.Content-Type"),
    "corpus/sentry_project_issues_list.json": ("shortId", "culprit", "firstSeen", "metadata.type"),
    "corpus/aws_stepfunctions_get_execution_history.json": ("previousEventId", "stateExitedEventDetails.name"),
    "corpus/aws_lambda_sqs_event_records.json": ("attributes.ApproximateReceiveCount", "eventSourceARN"),
    "corpus/aws_cloudformation_describe_stack_resources.json": ("ResourceType", "StackName"),
}
TITLE_NAMES = ("title", "name", "summary", "subject", "message", "filename", "display_name", "label")
STATUS_NAMES = ("state", "status", "phase", "stage", "conclusion")
COUNT_WORDS = r"total|count|records|items|rows|row_count|returned|results|entries|length|size"


@dataclass(frozen=True)
class Question:
    kind: str  # "id", "title", "status", "field" (of the k-th record), "count", "which"
    k: int  # 1-based position (0 for count)
    expected: Any
    field: str | None = None  # the member a "field" question asks for


@dataclass(frozen=True)
class Truth:
    records: list[dict[str, Any]]
    id_field: str
    title_field: str | None
    status_field: str | None
    more: tuple[str, ...] = ()


_POSITION = re.compile(r"-?\d+")  # a step of a dotted path that picks a list's item: 0 the first, -1 the last


def _get(record: Any, path: str | None) -> Any:
    if path is None or not isinstance(record, dict):
        return None
    if path in record and not isinstance(record[path], (dict, list)):
        return record[path]  # a column named by its dotted path (an index or columnar table)
    node: Any = record
    parts = path.split(".")
    for part in parts:
        if isinstance(node, list) and _POSITION.fullmatch(part):  # a list's item by position (-1: its last)
            at = int(part)
            if not -len(node) <= at < len(node):
                return None
            node = node[at]
        elif not isinstance(node, dict) or part not in node:
            break
        else:
            node = node[part]
        if not isinstance(node, (dict, list)):
            return node  # the whole path, or an object a shaper collapsed to its one telling value
    else:
        return node
    if any(_POSITION.fullmatch(part) for part in parts):
        return None  # a position names one item of one list: no other member stands for it
    for i in range(1, len(parts) - 1):  # a column named by the path's end (records unwrapped from ``snippet``)
        tail = ".".join(parts[i:])
        if tail in record and not isinstance(record[tail], (dict, list)):
            return record[tail]
    return _find_key(record, parts[-1])  # flattened or renamed by a shaper: the key anywhere


def _find_key(node: Any, key: str, depth: int = 0) -> Any:
    if depth > 4:
        return None
    if isinstance(node, dict):
        if key in node and not isinstance(node[key], (dict, list)):
            return node[key]
        for value in node.values():
            found = _find_key(value, key, depth + 1)
            if found is not None:
                return found
    return None


def _scalar_paths(record: dict[str, Any]) -> list[str]:
    """Dotted paths of the string members of a record, top level first, then one and two levels down."""
    out: list[str] = []
    level: list[tuple[str, Any]] = [("", record)]
    for _ in range(3):
        nxt: list[tuple[str, Any]] = []
        for prefix, node in level:
            for k, v in node.items():
                path = f"{prefix}{k}"
                if isinstance(v, str):
                    out.append(path)
                elif isinstance(v, dict):
                    nxt.append((path + ".", v))
        level = nxt
    return out


def truth(payload: Payload, records: list[dict[str, Any]] | None = None, id_field: str | None = None) -> Truth | None:
    """The records of a list payload and the fields the questions ask about; None for other payloads."""
    if records is None:
        if payload.name not in LIST_IDENTIFIERS:
            return None
        where, id_field = LIST_IDENTIFIERS[payload.name]
        doc = json.loads(payload.text)
        records = doc[where] if where else doc
    assert id_field is not None
    title, status = FIELDS.get(payload.name, (None, None))
    if payload.name not in FIELDS and records:
        paths = _scalar_paths(records[0])
        title = next((p for p in paths if p.split(".")[-1] in TITLE_NAMES and p != id_field), None)
        status = next((p for p in paths if p.split(".")[-1] in STATUS_NAMES), None)
    return Truth(list(records), id_field, title, status, MORE.get(payload.name, ()))


def questions(t: Truth) -> list[Question]:
    n = len(t.records)
    if n == 0:
        return []
    out = [Question("count", 0, n)]
    for k in sorted({1, (n + 1) // 2, n}):
        rec = t.records[k - 1]
        out.append(Question("id", k, _get(rec, t.id_field)))
        if t.title_field:
            out.append(Question("title", k, _get(rec, t.title_field)))
        if t.status_field:
            out.append(Question("status", k, _get(rec, t.status_field)))
        for field in t.more:
            if _get(rec, field) is not None:
                out.append(Question("field", k, _get(rec, field), field))
        out.append(Question("which", k, _get(rec, t.id_field)))
    return out


# --- the reader -------------------------------------------------------------------------------------------------


@dataclass
class Reading:
    records: list[dict[str, Any] | None]  # at their positions, as far as the reader can tell (None: not shown)
    complete_json: bool
    text: str

    @property
    def seen(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r is not None]


def _position(record: dict[str, Any]) -> int | None:
    """The 0-based position a record states (its ``#`` member: a run of ``#``, an integer), if any."""
    for key, value in record.items():
        if key and set(key) == {"#"} and isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return None


def _placed(records: list[dict[str, Any]]) -> list[dict[str, Any] | None]:
    """``records`` at their positions: each at the position it states, else after the one before it (None where
    the text shows no record); two records at one position (an index row, the record whole) are read as one."""
    out: list[dict[str, Any] | None] = []
    following = 0
    for record in records:
        stated = _position(record)
        at = following if stated is None else stated
        following = at + 1
        if at >= len(out):
            out.extend([None] * (at + 1 - len(out)))
        out[at] = record if out[at] is None else {**out[at], **record}  # two views of one record: both read
    return out


def _json_records(doc: Any, id_field: str, known: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """Records in a JSON text: lists of objects that carry the identifier (and, when ``known`` holds the true
    records' identifiers, at least one of them: another list that happens to have an ``id``, or a list inside
    the records, is not the record list), columnar tables naming the identifier's column, and objects that state
    their position and carry the identifier."""
    out: list[dict[str, Any]] = []
    parts = id_field.split(".")
    tails = {".".join(parts[i:]) for i in range(len(parts))}  # a column named by the path's end: records unwrapped
    same, derived = _envelope_block(doc, "same"), _envelope_block(doc, "derived")

    def decoded(x: Any) -> Any:  # a record with the members the envelope derives rebuilt from its own
        return rebuilt({**same, **x}, derived) if derived and isinstance(x, dict) else x

    def like(items: list[dict[str, Any]]) -> bool:
        return not known or any(str(_get(x, id_field)) in known for x in items)

    def walk(node: Any, depth: int) -> None:
        if depth > 12:
            return
        if isinstance(node, dict):
            cols, rows = node.get("fields"), node.get("rows")
            if (
                isinstance(cols, list)
                and isinstance(rows, list)
                and (tails.intersection(c for c in cols if isinstance(c, str)) or id_field in derived)
            ):
                out.extend(decoded(dict(zip(cols, r, strict=False))) for r in rows if isinstance(r, list))
                return
            if depth and _position(node) is not None and _get(decoded(node), id_field) is not None:
                out.append(decoded(node))
                return
            for value in node.values():
                walk(value, depth + 1)
        elif isinstance(node, list):
            items = [decoded(x) for x in node]
            if (
                items
                and all(isinstance(x, dict) for x in items)
                and any(_get(x, id_field) is not None for x in items)
                and like(items)
            ):
                out.extend(x for x in items if _get(x, id_field) is not None)
                return
            for value in node:
                walk(value, depth + 1)

    walk(doc, 0)
    return [{**same, **r} for r in out] if same else out


def _envelope_block(doc: Any, name: str) -> dict[str, Any]:
    """A member a shaper's envelope states for every record (hostshape's ``_hostshape.same``: members applied as
    defaults; ``_hostshape.derived``: templates rebuilding members from each record's own)."""
    if isinstance(doc, dict):
        for value in doc.values():
            if isinstance(value, dict) and isinstance(value.get(name), dict):
                return value[name]
    return {}


_STR = r'"((?:[^"\\]|\\.)*)'  # a JSON string body, possibly cut off


def _member_value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _regex_records(text: str, t: Truth) -> list[dict[str, Any]]:
    field = re.escape(t.id_field.split(".")[-1])
    pat = re.compile(rf'"{field}"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')
    hits = list(pat.finditer(text))
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, m in enumerate(hits):
        raw = m.group(1)
        if raw in seen:
            continue
        seen.add(raw)
        end = hits[i + 1].start() if i + 1 < len(hits) else len(text)
        window = text[m.end() : end]
        rec: dict[str, Any] = {t.id_field.split(".")[-1]: _member_value(raw)}
        for path in (t.title_field, t.status_field):
            if not path:
                continue
            key = re.escape(path.split(".")[-1])
            mm = re.search(rf'"{key}"\s*:\s*{_STR}', window)
            if mm:
                rec[path.split(".")[-1]] = _member_value('"' + mm.group(1) + '"')
        out.append(rec)
    return out


def read(text: str, t: Truth) -> Reading:
    try:
        doc = json.loads(text)
    except ValueError:
        return Reading(list(_regex_records(text, t)), False, text)
    known = frozenset(str(_get(r, t.id_field)) for r in t.records)
    return Reading(_placed(_json_records(doc, t.id_field, known)), True, text)


def _same_id(a: Any, b: Any) -> bool:
    return a is not None and str(a) == str(b)


def _title_ok(found: Any, expected: Any) -> bool:
    if not isinstance(found, str) or not isinstance(expected, str):
        return found is not None and found == expected
    if found == expected:
        return True
    stem = re.sub(r"(…\[\+\d+ chars\]|…|\.\.\.)\s*$", "", found).rstrip()
    return len(stem) >= min(20, len(expected)) and expected.startswith(stem)


def _stated_count(text: str, n: int) -> bool:
    return bool(
        re.search(rf'(?i)\b(?:{COUNT_WORDS})\b["\']?\s*[:=]?\s*{n}(?!\d)', text)
        or re.search(rf"(?i)(?<!\d){n}\s+(?:{COUNT_WORDS})\b", text)
        or re.search(rf"(?i)\bof\s+{n}(?!\d)", text)
    )


def answer(q: Question, r: Reading, t: Truth) -> bool:
    """Whether the reader gets ``q`` right from ``r``."""
    if q.kind == "count":
        return (r.complete_json and len(r.seen) == q.expected) or _stated_count(r.text, q.expected)
    if q.kind == "which":
        match = next((rec for rec in r.seen if _same_id(_get(rec, t.id_field), q.expected)), None)
        if match is None:
            return False
        if not t.title_field:
            return True
        return _title_ok(_get(match, t.title_field), _get(t.records[q.k - 1], t.title_field))
    if len(r.records) < q.k:
        return False
    rec = r.records[q.k - 1]
    if rec is None:
        return False
    if q.kind == "id":
        return _same_id(_get(rec, t.id_field), q.expected)
    if not _same_id(_get(rec, t.id_field), _get(t.records[q.k - 1], t.id_field)):
        return False  # the reader's k-th record is not the k-th record
    if q.kind == "title":
        return _title_ok(_get(rec, t.title_field), q.expected)
    if q.kind == "field":
        return _title_ok(_get(rec, q.field), q.expected)
    return _get(rec, t.status_field) == q.expected


def score(text: str, t: Truth) -> tuple[int, int]:
    """(questions answered right, questions asked) for one shaped text."""
    qs = questions(t)
    r = read(text, t)
    return sum(answer(q, r, t) for q in qs), len(qs)


def misses(text: str, p: Payload) -> list[str]:
    """The questions the reader gets wrong from ``text`` (what hostshape sent for ``p``), each as
    ``kind@position`` (``:member`` for a member asked): what ``--misses`` lists, to find the causes of misses."""
    from bench import hostbench

    t = hostbench.truth_for(p)
    if t is None:
        return []
    r = read(text, t)
    return [f"{q.kind}@{q.k}" + (f":{q.field}" if q.field else "") for q in questions(t) if not answer(q, r, t)]


def _hostshape_text(p: Payload, budget: int) -> str:
    """The text hostshape sends for ``p`` at ``budget``, as the reader reads it."""
    from bench import hostbench, peers

    tool = peers.HOSTSHAPE
    out = tool.read(tool.build(tool.user_knob(budget))(tool.prepare(p.text, p.tool)))
    return hostbench.view(tool.name, out)


# --- the table: hostshape against the peers a user would pick instead -------------------------------------------

PEER_NAMES = ("shrinkfit condense", "tooltrim", "terse-mcp")


def main(argv: list[str] | None = None) -> str:
    """Questions answered from the first answer, per list payload and budget: hostshape against the best of
    shrinkfit condense, tooltrim and terse-mcp at a setting that fits (bench/hostbench.py judges each)."""
    import argparse
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from bench import hostbench, hostpeers, peers

    ap = argparse.ArgumentParser(prog="bench/tasks.py", description=main.__doc__)
    ap.add_argument("--budgets", type=int, nargs="+", default=[2000, 4000, 8000])
    ap.add_argument("--files", nargs="+", help="payload names (default: every list payload with questions)")
    ap.add_argument("--misses", action="store_true", help="also list the questions hostshape missed, per cell")
    args = ap.parse_args(argv)
    tools = {t.name: t for t in (*peers.PEERS, *hostpeers.HOST_PEERS)}
    chosen = [peers.HOSTSHAPE] + [tools[n] for n in PEER_NAMES if n in tools]
    payloads = [p for p in hostbench.load_all(args.files) if p.kind == "list" and hostbench.truth_for(p)]
    lines = [
        "| file | budget | questions | hostshape | best peer (fits) | peer |",
        "|---|---:|---:|---:|---:|---|",
    ]
    ours = asked = behind = 0
    missed: list[str] = []
    for p in payloads:
        for budget in args.budgets:
            rows = [hostbench._evaluate(tool, p, budget).row for tool in chosen]
            mine = rows[0]
            rivals = [r for r in rows[1:] if r.fits and r.tasks_ok is not None]
            best = max(rivals, key=lambda r: r.tasks_ok or 0, default=None)
            n = mine.tasks_n or 0
            ours, asked = ours + (mine.tasks_ok or 0), asked + n
            behind += best is not None and (mine.tasks_ok or 0) < (best.tasks_ok or 0)
            lines.append(
                f"| {p.name} | {budget:,} | {n} | {mine.tasks_ok} | {best.tasks_ok if best else '-'} | "
                f"{best.tool if best else '-'} |"
            )
            if args.misses and (mine.tasks_ok or 0) < n:
                missed.append(f"{p.name} @{budget}: " + ", ".join(misses(_hostshape_text(p, budget), p)))
    if missed:
        lines += ["", "Questions missed (kind@position[:member]):", *missed]
    lines += [
        "",
        f"hostshape answers {ours}/{asked} ({ours / max(1, asked):.0%}); behind the best peer in {behind} cells.",
    ]
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    import sys as _sys

    main(_sys.argv[1:])
