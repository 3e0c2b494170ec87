"""Implementation of the `contacts` operations (outreach_api.interfaces.contacts)."""

from outreach_api.models import (
    AssignOwnerRequest,
    AssignOwnerResponse,
    BaseColumnListResponse,
    BulkContactUpdateRequest,
    BulkUpdateResponse,
    ColumnDefinitionListResponse,
    ColumnNameListResponse,
    ColumnValuesRequest,
    ColumnValuesResponse,
    ContactCreateRequest,
    ContactListResponse,
    ContactResponse,
    CustomColumnDefinitionListResponse,
    DashboardStatsResponse,
    FetchContactsRequest,
    FormFieldsResponse,
    MergeFilteredRequest,
    MergeFilteredResponse,
    ProfilePicturesRequest,
    ProfilePicturesResponse,
    SearchableFieldListResponse,
    WithdrawFromSequencesRequest,
    WithdrawFromSequencesResponse,
)

from ..context import RequestContext
from ..errors import not_implemented
from .contacts_billable import ContactBillingOperations


class ContactsService(ContactBillingOperations):
    """Contact schema reads, record reads, bulk writes, owner assignment, list membership, sequence withdrawal, email verification and unlocking of withheld details (the last two cost credits)."""

    async def list_contacts(
        self,
        ctx: RequestContext,
        *,
        page: int,
        limit: int,
    ) -> ContactListResponse:
        raise not_implemented(ctx)

    async def create_contact(
        self,
        ctx: RequestContext,
        *,
        body: ContactCreateRequest,
    ) -> ContactResponse:
        raise not_implemented(ctx)

    async def get_contact(
        self,
        ctx: RequestContext,
        *,
        contact_id: int,
    ) -> ContactResponse:
        raise not_implemented(ctx)

    async def list_column_definitions(
        self,
        ctx: RequestContext,
        *,
        list_id: int | None,
    ) -> ColumnDefinitionListResponse:
        raise not_implemented(ctx)

    async def list_custom_column_definitions(
        self,
        ctx: RequestContext,
        *,
        entity_type: str,
    ) -> CustomColumnDefinitionListResponse:
        raise not_implemented(ctx)

    async def list_searchable_fields(
        self,
        ctx: RequestContext,
        *,
        entity_type: str,
    ) -> SearchableFieldListResponse:
        raise not_implemented(ctx)

    async def list_base_columns(
        self,
        ctx: RequestContext,
        *,
        list_id: int,
    ) -> BaseColumnListResponse:
        raise not_implemented(ctx)

    async def list_column_names(
        self,
        ctx: RequestContext,
        *,
        list_id: int | None,
    ) -> ColumnNameListResponse:
        raise not_implemented(ctx)

    async def get_form_fields(
        self,
        ctx: RequestContext,
        *,
        list_id: int | None,
    ) -> FormFieldsResponse:
        raise not_implemented(ctx)

    async def get_dashboard_stats(
        self,
        ctx: RequestContext,
    ) -> DashboardStatsResponse:
        raise not_implemented(ctx)

    async def list_custom_columns(
        self,
        ctx: RequestContext,
    ) -> CustomColumnDefinitionListResponse:
        raise not_implemented(ctx)

    async def fetch_contacts(
        self,
        ctx: RequestContext,
        *,
        page: int,
        limit: int,
        body: FetchContactsRequest,
    ) -> ContactListResponse:
        raise not_implemented(ctx)

    async def get_profile_pictures(
        self,
        ctx: RequestContext,
        *,
        body: ProfilePicturesRequest,
    ) -> ProfilePicturesResponse:
        raise not_implemented(ctx)

    async def get_column_values(
        self,
        ctx: RequestContext,
        *,
        body: ColumnValuesRequest,
    ) -> ColumnValuesResponse:
        raise not_implemented(ctx)

    async def bulk_update_contacts(
        self,
        ctx: RequestContext,
        *,
        body: BulkContactUpdateRequest,
    ) -> BulkUpdateResponse:
        raise not_implemented(ctx)

    async def assign_contact_owner(
        self,
        ctx: RequestContext,
        *,
        body: AssignOwnerRequest,
    ) -> AssignOwnerResponse:
        raise not_implemented(ctx)

    async def merge_filtered_contacts(
        self,
        ctx: RequestContext,
        *,
        filter_model: str | None,
        sort_model: str | None,
        body: MergeFilteredRequest,
    ) -> MergeFilteredResponse:
        raise not_implemented(ctx)

    async def withdraw_contacts_from_sequences(
        self,
        ctx: RequestContext,
        *,
        body: WithdrawFromSequencesRequest,
    ) -> WithdrawFromSequencesResponse:
        raise not_implemented(ctx)
