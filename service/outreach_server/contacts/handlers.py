"""Implementation of the `contacts` operations (outreach_api.interfaces.contacts).

The handlers resolve what the key sees (ContactScope) and hand over to the store modules:
columns (schema reads), store and reads (reads and selections), writes.
The billable operations come from ContactBillingOperations (contacts_billable.py).
"""

from typing import Any

from outreach_api.models import (
    AssignOwnerRequest,
    AssignOwnerResponse,
    AssignOwnerResult,
    BaseColumn,
    BaseColumnListResponse,
    BulkContactUpdateRequest,
    BulkUpdateResponse,
    BulkUpdateResult,
    ColumnDefinition,
    ColumnDefinitionListResponse,
    ColumnNameListResponse,
    ColumnValues,
    ColumnValuesRequest,
    ColumnValuesResponse,
    ContactCreateRequest,
    ContactListResponse,
    ContactRecord,
    ContactResponse,
    CustomColumnDefinition,
    CustomColumnDefinitionListResponse,
    DashboardStats,
    DashboardStatsResponse,
    FetchContactsRequest,
    FormFields,
    FormFieldsResponse,
    MergeFilteredRequest,
    MergeFilteredResponse,
    MergeFilteredResult,
    ProfilePictureMap,
    ProfilePicturesRequest,
    ProfilePicturesResponse,
    SearchableField,
    SearchableFieldListResponse,
    WithdrawFromSequencesRequest,
    WithdrawFromSequencesResponse,
    WithdrawFromSequencesResult,
)

from ..billing.handlers import ContactBillingOperations
from ..core.pagination import Page
from ..runtime.context import RequestContext, contact_scope
from . import membership, reads, writes
from . import store as contact_store
from .columns import (
    CONTACT,
    Catalogue,
    base_columns,
    entity_of_list,
    read_catalogue,
)
from .columns import entity_type as checked_entity
from .searchable import searchable_fields


async def _catalogue(ctx: RequestContext, list_id: int | None, entity: str = CONTACT) -> Catalogue:
    """The columns of the list's entity (or of `entity` without a list)."""
    scope = await contact_scope(ctx)
    if list_id is not None:
        listed = await contact_store.get_list(ctx.services.reader, scope, list_id)
        entity = entity_of_list(listed["type"])
    return await read_catalogue(ctx.services.reader, scope.org_id, entity, list_id)


def _custom_pairs(catalogue: Catalogue) -> CustomColumnDefinitionListResponse:
    return CustomColumnDefinitionListResponse(
        data=[
            CustomColumnDefinition(column_id=c.column_id, name=c.display_name)
            for c in catalogue.custom()
        ]
    )


def _filter(model: Any) -> Any:
    return None if model is None else model.model_dump()


class ContactsHandlers(ContactBillingOperations):
    """Contact schema reads, record reads, bulk writes, owner assignment, list membership, sequence withdrawal, email verification and unlocking of withheld details (the last two cost credits)."""

    # -- records -------------------------------------------------------------------------

    async def list_contacts(
        self,
        ctx: RequestContext,
        *,
        page: int,
        limit: int,
    ) -> ContactListResponse:
        scope = await contact_scope(ctx)
        paging = Page(page, limit)
        async with ctx.services.engine.connect() as connection:
            records, total = await contact_store.page_of_contacts(
                connection, scope, paging.offset, limit
            )
        return ContactListResponse(
            data=[ContactRecord(**r) for r in records], pagination=paging.pagination(total)
        )

    async def create_contact(
        self,
        ctx: RequestContext,
        *,
        body: ContactCreateRequest,
    ) -> ContactResponse:
        scope = await contact_scope(ctx)
        values = {"list_id": body.list_id, **(body.model_extra or {})}
        record = await writes.create_contact(
            ctx.services.engine, ctx.services.reader, scope, values
        )
        return ContactResponse(data=ContactRecord(**record))

    async def get_contact(
        self,
        ctx: RequestContext,
        *,
        contact_id: int,
    ) -> ContactResponse:
        scope = await contact_scope(ctx)
        row = await contact_store.get_contact(ctx.services.reader, scope, contact_id)
        return ContactResponse(data=ContactRecord(**contact_store.contact_record(row)))

    # -- schema reads --------------------------------------------------------------------

    async def list_column_definitions(
        self,
        ctx: RequestContext,
        *,
        list_id: int | None,
    ) -> ColumnDefinitionListResponse:
        catalogue = await _catalogue(ctx, list_id)
        return ColumnDefinitionListResponse(
            data=[ColumnDefinition(**c.definition()) for c in catalogue.columns]
        )

    async def list_custom_column_definitions(
        self,
        ctx: RequestContext,
        *,
        entity_type: str,
    ) -> CustomColumnDefinitionListResponse:
        return _custom_pairs(await _catalogue(ctx, None, checked_entity(entity_type)))

    async def list_searchable_fields(
        self,
        ctx: RequestContext,
        *,
        entity_type: str,
    ) -> SearchableFieldListResponse:
        entity = checked_entity(entity_type)
        _, org_id = ctx.require_org()
        async with ctx.services.engine.connect() as connection:
            fields = await searchable_fields(connection, org_id, entity)
        return SearchableFieldListResponse(data=[SearchableField(**f) for f in fields])

    async def list_base_columns(
        self,
        ctx: RequestContext,
        *,
        list_id: int,
    ) -> BaseColumnListResponse:
        scope = await contact_scope(ctx)
        listed = await contact_store.get_list(ctx.services.reader, scope, list_id)
        columns = base_columns(entity_of_list(listed["type"]))
        return BaseColumnListResponse(data=[BaseColumn(**c) for c in columns])

    async def list_column_names(
        self,
        ctx: RequestContext,
        *,
        list_id: int | None,
    ) -> ColumnNameListResponse:
        catalogue = await _catalogue(ctx, list_id)
        return ColumnNameListResponse(data=[c.column_id for c in catalogue.columns])

    async def get_form_fields(
        self,
        ctx: RequestContext,
        *,
        list_id: int | None,
    ) -> FormFieldsResponse:
        catalogue = await _catalogue(ctx, list_id)
        return FormFieldsResponse(
            data=FormFields.model_validate(
                {"groups": catalogue.form_groups(), "entity_type": catalogue.entity}
            )
        )

    async def get_dashboard_stats(
        self,
        ctx: RequestContext,
    ) -> DashboardStatsResponse:
        scope = await contact_scope(ctx)
        async with ctx.services.engine.connect() as connection:
            stats = await reads.dashboard_stats(connection, scope)
        return DashboardStatsResponse(data=DashboardStats(**stats))

    async def list_custom_columns(
        self,
        ctx: RequestContext,
    ) -> CustomColumnDefinitionListResponse:
        return _custom_pairs(await _catalogue(ctx, None))

    # -- reads through POST --------------------------------------------------------------

    async def fetch_contacts(
        self,
        ctx: RequestContext,
        *,
        page: int,
        limit: int,
        body: FetchContactsRequest,
    ) -> ContactListResponse:
        scope = await contact_scope(ctx)
        paging = Page(page, limit)
        records, total = await reads.fetch(
            ctx.services.reader,
            scope,
            columns=body.columns,
            list_id=body.list_id,
            filter_model=_filter(body.filter_model),
            sort_model=body.sort_model,
            offset=paging.offset,
            limit=limit,
        )
        return ContactListResponse(
            data=[ContactRecord(**r) for r in records], pagination=paging.pagination(total)
        )

    async def get_profile_pictures(
        self,
        ctx: RequestContext,
        *,
        body: ProfilePicturesRequest,
    ) -> ProfilePicturesResponse:
        ctx.require_org()
        async with ctx.services.engine.connect() as connection:
            photos = await reads.profile_pictures(connection, body.linkedin_urls)
        return ProfilePicturesResponse(data=ProfilePictureMap(photos))

    async def get_column_values(
        self,
        ctx: RequestContext,
        *,
        body: ColumnValuesRequest,
    ) -> ColumnValuesResponse:
        scope = await contact_scope(ctx)
        async with ctx.services.engine.connect() as connection:
            values = await reads.column_values(
                connection, ctx.services.reader, scope, body.list_id, body.record_id
            )
        return ColumnValuesResponse(data=ColumnValues(**values))

    # -- writes --------------------------------------------------------------------------

    async def bulk_update_contacts(
        self,
        ctx: RequestContext,
        *,
        body: BulkContactUpdateRequest,
    ) -> BulkUpdateResponse:
        scope = await contact_scope(ctx)
        items = [item.model_dump() for item in body.root]
        result = await writes.bulk_update(ctx.services.engine, scope, items)
        return BulkUpdateResponse(data=BulkUpdateResult.model_validate(result))

    async def assign_contact_owner(
        self,
        ctx: RequestContext,
        *,
        body: AssignOwnerRequest,
    ) -> AssignOwnerResponse:
        scope = await contact_scope(ctx)
        updated = await writes.assign_owner(
            ctx.services.engine,
            scope,
            owner_id=body.owner_id,
            contact_ids=body.contact_ids,
            filter_model=_filter(body.filter_model),
            list_id=body.list_id,
        )
        return AssignOwnerResponse(
            data=AssignOwnerResult.model_validate({"updated": updated, "owner_id": body.owner_id})
        )

    async def merge_filtered_contacts(
        self,
        ctx: RequestContext,
        *,
        filter_model: str | None,
        sort_model: str | None,
        body: MergeFilteredRequest,
    ) -> MergeFilteredResponse:
        scope = await contact_scope(ctx)
        from_query = filter_model is not None and filter_model.strip() != ""
        result = await membership.merge_filtered(
            ctx.services.engine,
            ctx.services.reader,
            scope,
            target_list_id=body.target_list_id,
            filter_model=filter_model if from_query else _filter(body.filter_model),
            sort_model=sort_model,
            filter_loc=("query", "filterModel") if from_query else ("body", "filter_model"),
            source_list_id=body.source_list_id,
            conflict_resolution=(
                body.conflict_resolution.value if body.conflict_resolution else None
            ),
        )
        return MergeFilteredResponse(data=MergeFilteredResult.model_validate(result))

    async def withdraw_contacts_from_sequences(
        self,
        ctx: RequestContext,
        *,
        body: WithdrawFromSequencesRequest,
    ) -> WithdrawFromSequencesResponse:
        scope = await contact_scope(ctx)
        result = await membership.withdraw(
            ctx.services.engine,
            scope,
            contact_ids=body.contact_ids,
            sequence_id=body.sequence_id,
            remove_all=bool(body.remove_all),
        )
        return WithdrawFromSequencesResponse(
            data=WithdrawFromSequencesResult.model_validate(result)
        )
